import { Button, type ButtonProps } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { confirmAction } from './confirm';

/**
 * A destructive action in a list row: a small red button that asks first (a confirm dialog
 * with the action's title, its consequence and the confirming word).
 */
export function ConfirmButton({
  children,
  title,
  text,
  confirm,
  onConfirm,
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
  'aria-label'?: string;
} & Omit<ButtonProps, 'children' | 'onClick'>) {
  const { t } = useTranslation();
  const label = children ?? t('common.delete');
  return (
    <Button
      size="compact-xs"
      color="red"
      variant="subtle"
      aria-label={ariaLabel}
      {...buttonProps}
      onClick={() =>
        confirmAction({
          title,
          text,
          confirm: confirm ?? (typeof label === 'string' ? label : title),
          onConfirm,
        })
      }
    >
      {label}
    </Button>
  );
}
