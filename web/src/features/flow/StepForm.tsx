import '@xyflow/react/dist/style.css';
import { Button, Group, Select, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import type { Block } from '../../api/types';
import { ErrorAlert } from '../../components/states';
import { useCreateStep } from './queries';
import { useFormUnsavedChanges } from '../../components/unsaved-changes';

export function StepForm({ botId, blocks }: { botId: string; blocks: Block[] }) {
  const { t } = useTranslation();
  const form = useForm({
    initialValues: { label: '', step_type: 'message', block_id: '' },
    validate: { label: (v) => (v.trim() ? null : t('flow.labelRequired')) },
  });
  const create = useCreateStep(botId);
  const bodyOf = (values: typeof form.values) => ({
    label: values.label.trim(),
    step_type: values.step_type as 'message',
    block_id: values.step_type === 'block' && values.block_id ? values.block_id : null,
  });
  const created = { onSuccess: () => form.reset() };
  useFormUnsavedChanges(form, (values) => create.mutateAsync(bodyOf(values), created));
  return (
    <form onSubmit={form.onSubmit((values) => create.mutate(bodyOf(values), created))} noValidate>
      <Group align="flex-end" gap="sm">
        <TextInput label={t('flow.stepLabel')} required {...form.getInputProps('label')} />
        <Select
          label={t('flow.stepType')}
          allowDeselect={false}
          w={150}
          data={['message', 'block', 'input', 'handover'].map((s) => ({
            value: s,
            label: t(`flow.stepTypes.${s}`),
          }))}
          {...form.getInputProps('step_type')}
        />
        {form.values.step_type === 'block' && (
          <Select
            label={t('flow.block')}
            w={180}
            data={blocks.map((b) => ({ value: b.id, label: b.name }))}
            {...form.getInputProps('block_id')}
          />
        )}
        <Button type="submit" loading={create.isPending}>
          {t('flow.addStep')}
        </Button>
      </Group>
      {create.error && <ErrorAlert error={create.error} />}
    </form>
  );
}
