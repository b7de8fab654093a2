import '@xyflow/react/dist/style.css';
import { Badge, Button, Group, Select, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Block, BlockBody } from '../../api/types';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorAlert } from '../../components/states';
import { useDeleteBlock, useUpdateBlock } from './queries';
import { triggerOptions } from './block-form';

const STATUS_COLOUR = { green: 'green', orange: 'orange', red: 'red' } as const;

export function BlockRow({
  block,
  botId,
  status,
  canEdit,
  onEdit,
}: {
  block: Block;
  botId: string;
  status?: string;
  canEdit: boolean;
  onEdit: () => void;
}) {
  const { t } = useTranslation();
  const patch = useUpdateBlock(botId, block.id);
  const setTrigger = (trigger: string | null) =>
    patch.mutate({ trigger_mode: (trigger || null) as BlockBody['trigger_mode'] });
  const remove = useDeleteBlock(botId, block.id);
  return (
    <Table.Tr data-testid={`block-${block.name}`}>
      <Table.Td>
        {block.name}
        <Text size="xs" c="dimmed">
          {block.items.map((i) => i.title).join(', ')}
        </Text>
        {(patch.error || remove.error) && <ErrorAlert error={patch.error ?? remove.error} />}
      </Table.Td>
      <Table.Td>
        {status && (
          <Badge color={STATUS_COLOUR[status as keyof typeof STATUS_COLOUR]}>
            {t(`flow.status.${status}`)}
          </Badge>
        )}
      </Table.Td>
      <Table.Td>
        {canEdit ? (
          <Select
            aria-label={t('flow.triggerOf', { name: block.name })}
            size="xs"
            w={150}
            allowDeselect={false}
            value={block.trigger_mode ?? ''}
            onChange={setTrigger}
            data={triggerOptions(t)}
          />
        ) : (
          t(`flow.triggers.${block.trigger_mode ?? 'none'}`)
        )}
      </Table.Td>
      <Table.Td>
        {canEdit && (
          <Group gap={4}>
            <Button
              size="compact-xs"
              variant="light"
              aria-label={t('flow.edit.open', { name: block.name })}
              onClick={onEdit}
            >
              {t('flow.edit.button')}
            </Button>
            <ConfirmButton
              title={t('flow.deleteBlock')}
              text={t('flow.deleteBlockConfirm', { name: block.name })}
              onConfirm={() => remove.mutate()}
            />
          </Group>
        )}
      </Table.Td>
    </Table.Tr>
  );
}
