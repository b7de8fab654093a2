import { Button, type ButtonProps } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { confirmAction } from './confirm';

/**
 * An action that asks first (a confirm dialog with the action's title, its consequence and the
 * confirming word): by default a small red button of a list row; `ask={false}` acts at once
 * (where there is nothing to lose yet), `danger={false}` keeps the theme's colour.
 */
export function ConfirmButton({
  children,
  title,
  text,
  confirm,
  onConfirm,
  ask = true,
  danger = true,
  'aria-label': ariaLabel,
  ...buttonProps
}: {
  /** The button's text; „Löschen“ / “Delete” when omitted. */
  children?: ReactNode;
  title: string;
  text: string;
  /** The dialog's confirming button; the button's own text when it is a plain string. */
  confirm?: string;
  onConfirm: () => void;
  ask?: boolean;
  danger?: boolean;
  'aria-label'?: string;
} & Omit<ButtonProps, 'children' | 'onClick'>) {
  const { t } = useTranslation();
  const label = children ?? t('common.delete');
  return (
    <Button
      size="compact-xs"
      color={danger ? 'red' : undefined}
      variant="subtle"
      aria-label={ariaLabel}
      {...buttonProps}
      onClick={() =>
        ask
          ? confirmAction({
              title,
              text,
              confirm: confirm ?? (typeof label === 'string' ? label : title),
              onConfirm,
            })
          : onConfirm()
      }
    >
      {label}
    </Button>
  );
}
