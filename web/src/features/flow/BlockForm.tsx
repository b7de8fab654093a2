import '@xyflow/react/dist/style.css';
import { Select, Stack, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import type { BlockBody } from '../../api/types';
import { ErrorAlert } from '../../components/states';
import { useCreateBlock } from './queries';
import { triggerOptions } from './block-form';
import { FormActions } from '../../components/FormActions';
import { useFormUnsavedChanges } from '../../components/unsaved-changes';

export function BlockForm({ botId }: { botId: string }) {
  const { t } = useTranslation();
  const form = useForm({
    initialValues: { name: '', block_type: 'buttons', items: '', trigger_mode: '' },
    validate: {
      name: (v) => (v.trim() ? null : t('flow.nameRequired')),
      items: (v) => (v.split(',').some((s) => s.trim()) ? null : t('flow.itemsRequired')),
    },
  });
  const create = useCreateBlock(botId);
  const bodyOf = (values: typeof form.values): BlockBody => ({
    name: values.name.trim(),
    block_type: values.block_type as BlockBody['block_type'],
    items: values.items
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((title, index) => ({ id: `item-${index + 1}`, title })),
    trigger_mode: (values.trigger_mode || null) as BlockBody['trigger_mode'],
  });
  const created = { onSuccess: () => form.reset() };
  useFormUnsavedChanges(form, (values) => create.mutateAsync(bodyOf(values), created));
  return (
    <form onSubmit={form.onSubmit((values) => create.mutate(bodyOf(values), created))} noValidate>
      <Stack gap="sm">
        <Title order={3} size="h5">
          {t('flow.newBlock')}
        </Title>
        {create.error && <ErrorAlert error={create.error} />}
        <TextInput label={t('flow.blockName')} required {...form.getInputProps('name')} />
        <Select
          label={t('flow.blockType')}
          allowDeselect={false}
          data={[
            { value: 'buttons', label: t('flow.types.buttons') },
            { value: 'list', label: t('flow.types.list') },
          ]}
          {...form.getInputProps('block_type')}
        />
        <TextInput
          label={t('flow.items')}
          description={t('flow.itemsHelp')}
          required
          {...form.getInputProps('items')}
        />
        <Select
          label={t('flow.trigger')}
          data={triggerOptions(t)}
          allowDeselect={false}
          {...form.getInputProps('trigger_mode')}
        />
        <FormActions start pending={create.isPending} submit={t('flow.addBlock')} />
      </Stack>
    </form>
  );
}
