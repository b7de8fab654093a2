import { Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import i18n from '../i18n';

/** Destructive actions are confirmed first. */
export function confirmAction(options: {
  title: string;
  text: string;
  confirm: string;
  onConfirm: () => void;
}) {
  modals.openConfirmModal({
    title: options.title,
    children: <Text size="sm">{options.text}</Text>,
    labels: { confirm: options.confirm, cancel: i18n.t('common.cancel') },
    confirmProps: { color: 'red' },
    onConfirm: options.onConfirm,
  });
}
