import { notifications } from '@mantine/notifications';
import i18n from '../i18n';

/** A short confirmation in the corner; its close button is named for screen readers. */
export function notify(message: string, color: 'green' | 'red' = 'green'): void {
  notifications.show({ color, message, closeButtonProps: { 'aria-label': i18n.t('common.close') } });
}
