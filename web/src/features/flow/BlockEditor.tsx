import { Alert, Divider, Group, Modal, Select, Stack, TagsInput, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import type { Block } from '../../api/types';
import { notify } from '../../components/notify';
import { useFormUnsavedChanges } from '../../components/unsaved-changes';
import { ErrorAlert, Loading } from '../../components/states';
import { useFlowSteps, useUpdateBlock } from './queries';
import {
  triggerOptions,
  blockPatch,
  blockProblems,
  blockValues,
  nextItemId,
  type BlockValues,
} from './block-form';
import { FormActions } from '../../components/FormActions';
import { RowsFieldset } from './RowsFieldset';

const ACTIONS = ['none', 'goto_step', 'reply', 'handover'] as const;
const OPERATORS = ['equals', 'not_equals', 'contains', 'exists'] as const;

/**
 * Edits everything the pre-flight check evaluates on a block: its trigger, an action per option
 * (go to a step, reply, hand over), the conditions of step_config and the exits.
 */
export function BlockEditor({ botId, block, onClose }: { botId: string; block: Block; onClose: () => void }) {
  const { t } = useTranslation();
  const steps = useFlowSteps(botId);
  const form = useForm<BlockValues>({
    initialValues: blockValues(block),
    validate: (values) =>
      Object.fromEntries(Object.entries(blockProblems(values)).map(([path, key]) => [path, t(key)])),
  });
  const save = useUpdateBlock(botId, block.id);
  const saved = {
    onSuccess: () => {
      notify(t('flow.edit.saved'));
      onClose();
    },
  };
  useFormUnsavedChanges(form, (values) => save.mutateAsync(blockPatch(values), saved));
  const stepOptions = (steps.data?.steps ?? []).map((s) => ({
    value: s.id,
    label: `${s.step_order}. ${s.label}`,
  }));
  const targetOptions = [...stepOptions, { value: 'end', label: t('flow.edit.end') }];
  const v = form.values;

  return (
    <Modal opened onClose={onClose} title={t('flow.edit.title', { name: block.name })} size="xl">
      {steps.isPending ? (
        <Loading />
      ) : (
        <form onSubmit={form.onSubmit((values) => save.mutate(blockPatch(values), saved))} noValidate>
          <Stack>
            {(save.error || steps.error) && <ErrorAlert error={save.error ?? steps.error} />}
            <Group grow align="flex-start">
              <TextInput label={t('flow.blockName')} required {...form.getInputProps('name')} />
              <Select
                label={t('flow.trigger')}
                allowDeselect={false}
                data={triggerOptions(t)}
                {...form.getInputProps('trigger_mode')}
              />
            </Group>
            {v.trigger_mode === 'keyword' && (
              <TagsInput
                label={t('flow.edit.keywords')}
                description={t('flow.edit.keywordsHelp')}
                {...form.getInputProps('keywords')}
              />
            )}

            <RowsFieldset
              legend={t('flow.edit.options')}
              help={t('flow.edit.optionsHelp')}
              rows={v.items}
              rowKey={(item) => item.id}
              rowTestId={(item) => `option-${item.id}`}
              removeLabel={(i) => t('flow.edit.removeOption', { n: i + 1 })}
              onRemove={(i) => form.removeListItem('items', i)}
              addLabel={t('flow.edit.addOption')}
              onAdd={() =>
                form.insertListItem('items', {
                  id: nextItemId(v.items),
                  title: '',
                  action: 'none',
                  step_id: '',
                  text: '',
                })
              }
            >
              {(item, i) => (
                <>
                  <TextInput
                    label={t('flow.edit.optionTitle', { n: i + 1 })}
                    w={170}
                    {...form.getInputProps(`items.${i}.title`)}
                  />
                  <Select
                    label={t('flow.edit.action')}
                    w={170}
                    allowDeselect={false}
                    data={ACTIONS.map((a) => ({ value: a, label: t(`flow.edit.actions.${a}`) }))}
                    {...form.getInputProps(`items.${i}.action`)}
                  />
                  {item.action === 'goto_step' && (
                    <Select
                      label={t('flow.edit.targetStep')}
                      w={200}
                      data={stepOptions}
                      nothingFoundMessage={t('flow.edit.noSteps')}
                      {...form.getInputProps(`items.${i}.step_id`)}
                    />
                  )}
                  {item.action === 'reply' && (
                    <TextInput
                      label={t('flow.edit.replyText')}
                      w={240}
                      {...form.getInputProps(`items.${i}.text`)}
                    />
                  )}
                </>
              )}
            </RowsFieldset>

            <RowsFieldset
              legend={t('flow.edit.conditions')}
              help={t('flow.edit.conditionsHelp')}
              rows={v.conditions}
              rowKey={(_c, i) => i}
              rowTestId={() => 'condition-row'}
              removeLabel={(i) => t('flow.edit.removeCondition', { n: i + 1 })}
              onRemove={(i) => form.removeListItem('conditions', i)}
              addLabel={t('flow.edit.addCondition')}
              onAdd={() => form.insertListItem('conditions', { field: '', operator: 'equals', value: '' })}
            >
              {(condition, i) => (
                <>
                  <TextInput
                    label={t('flow.edit.field')}
                    w={160}
                    {...form.getInputProps(`conditions.${i}.field`)}
                  />
                  <Select
                    label={t('flow.edit.operator')}
                    w={150}
                    allowDeselect={false}
                    data={OPERATORS.map((o) => ({ value: o, label: t(`flow.edit.operators.${o}`) }))}
                    {...form.getInputProps(`conditions.${i}.operator`)}
                  />
                  {condition.operator !== 'exists' && (
                    <TextInput
                      label={t('flow.edit.value')}
                      w={160}
                      {...form.getInputProps(`conditions.${i}.value`)}
                    />
                  )}
                </>
              )}
            </RowsFieldset>

            <RowsFieldset
              legend={t('flow.edit.exits')}
              help={t('flow.edit.exitsHelp')}
              rows={v.exits}
              rowKey={(_e, i) => i}
              rowTestId={() => 'exit-row'}
              removeLabel={(i) => t('flow.edit.removeExit', { n: i + 1 })}
              onRemove={(i) => form.removeListItem('exits', i)}
              addLabel={t('flow.edit.addExit')}
              onAdd={() =>
                form.insertListItem('exits', {
                  name: v.exits.some((e) => e.name === 'default') ? '' : 'default',
                  target: '',
                })
              }
              after={(exit) =>
                exit.name.trim() &&
                exit.name.trim() !== 'default' && (
                  <Text size="xs" c="orange.9" w="100%">
                    {t('flow.edit.exitNotFollowed')}
                  </Text>
                )
              }
            >
              {(_exit, i) => (
                <>
                  <TextInput
                    label={t('flow.edit.exitName')}
                    w={160}
                    {...form.getInputProps(`exits.${i}.name`)}
                  />
                  <Select
                    label={t('flow.edit.exitTarget')}
                    w={220}
                    data={targetOptions}
                    {...form.getInputProps(`exits.${i}.target`)}
                  />
                </>
              )}
            </RowsFieldset>
            {stepOptions.length === 0 && <Alert color="blue">{t('flow.edit.noStepsHint')}</Alert>}
            <Divider />
            <FormActions onCancel={onClose} pending={save.isPending} />
          </Stack>
        </form>
      )}
    </Modal>
  );
}
