import { Card, Group, Select, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useFormUnsavedChanges } from '../../components/unsaved-changes';
import { useTranslation } from 'react-i18next';
import type { Block, FlowStep } from '../../api/types';
import { ErrorAlert } from '../../components/states';
import { FormActions } from '../../components/FormActions';
import { useUpdateStep } from './queries';

const STEP_TYPES = ['message', 'block', 'input', 'handover'] as const;
type StepType = (typeof STEP_TYPES)[number];

/**
 * Edits the selected step of the flow: what it is, what it says (a message's text, an input
 * step's question and the field its answer fills, a block step's intro) and the block it shows.
 */
export function StepEditor({
  botId,
  step,
  blocks,
  canEdit,
}: {
  botId: string;
  step: FlowStep;
  blocks: Block[];
  canEdit: boolean;
}) {
  const { t } = useTranslation();
  const form = useForm({
    initialValues: {
      label: step.label,
      step_type: step.step_type as string,
      block_id: step.block_id ?? '',
      content: step.content ?? '',
      field_name: step.field_name ?? '',
    },
    validate: {
      label: (v) => (v.trim() ? null : t('flow.labelRequired')),
      field_name: (v, values) =>
        values.step_type !== 'input' || v === '' || /^[A-Za-z0-9_.-]{1,100}$/.test(v)
          ? null
          : t('flow.stepEditor.fieldNameInvalid'),
    },
  });
  const save = useUpdateStep(botId);
  const saveValues = (values: typeof form.values) =>
    save.mutateAsync(
      {
        stepId: step.id,
        body: {
          label: values.label.trim(),
          step_type: values.step_type as StepType,
          block_id: values.step_type === 'input' || !values.block_id ? null : values.block_id,
          content: values.content.trim() === '' ? null : values.content,
          field_name: values.step_type === 'input' && values.field_name ? values.field_name : null,
        },
      },
      {
        onSuccess: () => {
          // What was saved is the new starting point: leaving now asks nothing.
          form.setInitialValues(values);
          form.resetDirty(values);
        },
      },
    );
  useFormUnsavedChanges(form, saveValues, canEdit);
  const type = form.values.step_type as StepType;
  return (
    <Card withBorder mt="md" data-testid="step-editor">
      <form onSubmit={form.onSubmit((values) => void saveValues(values).catch(() => undefined))} noValidate>
        <Stack gap="sm">
          <Title order={3} size="h5">
            {t('flow.stepEditor.title', { order: step.step_order, label: step.label })}
          </Title>
          {save.error && <ErrorAlert error={save.error} />}
          <Group grow align="flex-start">
            <TextInput
              label={t('flow.stepLabel')}
              required
              disabled={!canEdit}
              {...form.getInputProps('label')}
            />
            <Select
              label={t('flow.stepType')}
              allowDeselect={false}
              disabled={!canEdit}
              data={STEP_TYPES.map((s) => ({ value: s, label: t(`flow.stepTypes.${s}`) }))}
              {...form.getInputProps('step_type')}
            />
          </Group>
          <Textarea
            label={t(`flow.stepEditor.content.${type}`)}
            description={t(`flow.stepEditor.contentHelp.${type}`)}
            autosize
            minRows={2}
            maxLength={2000}
            disabled={!canEdit}
            {...form.getInputProps('content')}
          />
          {type === 'input' && (
            <TextInput
              label={t('flow.stepEditor.fieldName')}
              description={t('flow.stepEditor.fieldNameHelp')}
              disabled={!canEdit}
              {...form.getInputProps('field_name')}
            />
          )}
          {(type === 'block' || type === 'message') && (
            <Select
              label={t('flow.block')}
              clearable
              disabled={!canEdit}
              data={blocks.map((b) => ({ value: b.id, label: b.name }))}
              {...form.getInputProps('block_id')}
              onChange={(value) => form.setFieldValue('block_id', value ?? '')}
            />
          )}
          {canEdit ? (
            <FormActions start pending={save.isPending} />
          ) : (
            <Text size="sm" c="dimmed">
              {t('flow.stepEditor.readOnly')}
            </Text>
          )}
        </Stack>
      </form>
    </Card>
  );
}
