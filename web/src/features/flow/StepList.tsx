import { ActionIcon, Badge, Button, Group, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Block } from '../../api/types';
import { ConfirmButton } from '../../components/ConfirmButton';
import { notify } from '../../components/notify';
import { ErrorAlert } from '../../components/states';
import { useDeleteStep, useFlowSteps, useUpdateStep } from './queries';
import { DataTable } from '../../components/DataTable';

/** The flow's steps in order: move a step up or down, delete it (references to it are named). */
export function StepList({
  botId,
  blocks,
  canEdit,
  selected,
  onSelect,
}: {
  botId: string;
  blocks: Block[];
  canEdit: boolean;
  /** The step being edited, and how a row selects its step. */
  selected: string | null;
  onSelect: (stepId: string) => void;
}) {
  const { t } = useTranslation();
  const steps = useFlowSteps(botId);
  const update = useUpdateStep(botId);
  const move = (stepId: string, order: number) => update.mutate({ stepId, body: { step_order: order } });
  const remove = useDeleteStep(botId);
  const removeStep = (stepId: string) =>
    remove.mutate(stepId, {
      onSuccess: (result) => {
        if (result.dangling_references.length > 0)
          notify(
            t('flow.steps.dangling', {
              blocks: [...new Set(result.dangling_references.map((r) => r.block_name))].join(', '),
            }),
            'red',
          );
      },
    });
  const list = steps.data?.steps ?? [];
  if (list.length === 0) return null;
  const blockName = new Map(blocks.map((b) => [b.id, b.name]));
  return (
    <>
      {(update.error || remove.error || steps.error) && (
        <ErrorAlert error={update.error ?? remove.error ?? steps.error} />
      )}
      <DataTable
        columns={[
          { label: '#' },
          t('flow.stepLabel'),
          t('flow.stepType'),
          ...(canEdit ? [t('common.actions')] : []),
        ]}
        minWidth={360}
        mt="sm"
        data-testid="step-list"
      >
        {list.map((step, index) => (
          <Table.Tr key={step.id} bg={step.id === selected ? 'blue.0' : undefined}>
            <Table.Td>{step.step_order}</Table.Td>
            <Table.Td>
              <Button
                variant="subtle"
                size="compact-sm"
                px={4}
                aria-label={
                  canEdit
                    ? t('flow.stepEditor.select', { label: step.label })
                    : t('flow.stepEditor.view', { label: step.label })
                }
                aria-pressed={step.id === selected}
                onClick={() => onSelect(step.id)}
              >
                {step.label}
              </Button>
              {step.block_id && (
                <Text size="xs" c="dimmed">
                  {blockName.get(step.block_id)}
                </Text>
              )}
            </Table.Td>
            <Table.Td>
              <Badge color="gray">{t(`flow.stepTypes.${step.step_type}`)}</Badge>
            </Table.Td>
            {canEdit && (
              <Table.Td>
                <Group gap={2} wrap="nowrap">
                  <ActionIcon
                    variant="subtle"
                    aria-label={t('flow.steps.up', { label: step.label })}
                    disabled={index === 0}
                    onClick={() => move(step.id, step.step_order - 1)}
                  >
                    ↑
                  </ActionIcon>
                  <ActionIcon
                    variant="subtle"
                    aria-label={t('flow.steps.down', { label: step.label })}
                    disabled={index === list.length - 1}
                    onClick={() => move(step.id, step.step_order + 1)}
                  >
                    ↓
                  </ActionIcon>
                  <ConfirmButton
                    aria-label={t('flow.steps.deleteOf', { label: step.label })}
                    title={t('flow.steps.delete')}
                    text={t('flow.steps.deleteConfirm', { label: step.label })}
                    onConfirm={() => removeStep(step.id)}
                  />
                </Group>
              </Table.Td>
            )}
          </Table.Tr>
        ))}
      </DataTable>
    </>
  );
}
