import { PasswordInput, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { notify } from '../../components/notify';
import { useFormUnsavedChanges } from '../../components/unsaved-changes';
import { NewPasswordFields, newPasswordValidation } from './NewPasswordFields';
import { Section } from '../../components/Section';
import { FormActions } from '../../components/FormActions';
import { useChangeOwnPassword } from './queries';

export function OwnPassword() {
  const { t } = useTranslation();
  const form = useForm({
    initialValues: { current: '', next: '', repeat: '' },
    validate: {
      current: (v) => (v ? null : t('team.password.currentRequired')),
      ...newPasswordValidation('next', t),
    },
  });
  const change = useChangeOwnPassword({
    onSuccess: () => {
      form.reset();
      notify(t('team.password.changed'));
    },
  });
  useFormUnsavedChanges(form, (values) => change.mutateAsync(values));
  return (
    <Section title={t('team.password.title')} intro={t('team.password.intro')}>
      <form onSubmit={form.onSubmit((values) => change.mutate(values))} noValidate>
        <Stack maw={420}>
          <PasswordInput
            label={t('team.password.current')}
            autoComplete="current-password"
            required
            {...form.getInputProps('current')}
          />
          <NewPasswordFields
            label={t('team.password.new')}
            repeatLabel={t('team.password.repeat')}
            input={form.getInputProps('next')}
            repeatInput={form.getInputProps('repeat')}
          />
          <FormActions start pending={change.isPending} submit={t('team.password.submit')} />
        </Stack>
      </form>
    </Section>
  );
}
