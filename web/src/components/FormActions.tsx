import { Button, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/**
 * The foot of a dialog's form: "Cancel" (when the dialog can be left) and the submit button,
 * busy while the form is sent; its text is "Save" unless named.
 */
export function FormActions({
  onCancel,
  pending,
  submit,
  disabled,
}: {
  onCancel?: () => void;
  pending: boolean;
  submit?: string;
  disabled?: boolean;
}) {
  const { t } = useTranslation();
  return (
    <Group justify="flex-end">
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
