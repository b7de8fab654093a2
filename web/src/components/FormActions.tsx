import { Button, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/**
 * The foot of a form: "Cancel" (when the dialog can be left) and the submit button, busy while
 * the form is sent; its text is "Save" unless named. At a dialog's right; `start` puts it at the
 * left, under a form in a page.
 */
export function FormActions({
  onCancel,
  pending,
  submit,
  disabled,
  start,
}: {
  onCancel?: () => void;
  pending: boolean;
  submit?: string;
  disabled?: boolean;
  start?: boolean;
}) {
  const { t } = useTranslation();
  return (
    <Group justify={start ? undefined : 'flex-end'}>
      {onCancel && (
        <Button variant="default" onClick={onCancel}>
          {t('common.cancel')}
        </Button>
      )}
      <Button type="submit" loading={pending} disabled={disabled}>
        {submit ?? t('common.save')}
      </Button>
    </Group>
  );
}
