import { Modal, Stack, TextInput, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useCreateBot } from './queries';
import { ErrorAlert } from '../../components/states';
import { FormActions } from '../../components/FormActions';

export function CreateBot({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const form = useForm({
    initialValues: { name: '', description: '' },
    validate: { name: (v) => (v.trim() ? null : t('bots.nameRequired')) },
  });
  const create = useCreateBot((bot) => {
    onClose();
    form.reset();
    void navigate(`/bots/${bot.id}`);
  });
  return (
    <Modal opened={opened} onClose={onClose} title={t('bots.create')}>
      <form onSubmit={form.onSubmit((values) => create.mutate(values))} noValidate>
        <Stack>
          {create.error && <ErrorAlert error={create.error} />}
          <TextInput label={t('bots.name')} required data-autofocus {...form.getInputProps('name')} />
          <Textarea
            label={t('bots.description')}
            autosize
            minRows={2}
            {...form.getInputProps('description')}
          />
          <FormActions onCancel={onClose} pending={create.isPending} submit={t('bots.createSubmit')} />
        </Stack>
      </form>
    </Modal>
  );
}
