import { Card, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ErrorAlert, Loading } from '../../components/states';
import { sideBySide } from './side-by-side';
import { usePromptDiff } from './queries';

export function DiffView({ botId, from, to }: { botId: string; from: string; to: string }) {
  const { t } = useTranslation();
  const diff = usePromptDiff(botId, from, to);
  if (diff.isPending) return <Loading />;
  if (diff.error) return <ErrorAlert error={diff.error} />;
  const rows = sideBySide(diff.data.changes);
  const cell = (side: { text: string; type: string } | null) => (
    <Table.Td
      style={{
        background: side?.type === 'removed' ? '#ffe3e3' : side?.type === 'added' ? '#d3f9d8' : undefined,
        whiteSpace: 'pre-wrap',
        fontFamily: 'monospace',
        fontSize: 13,
        verticalAlign: 'top',
        width: '50%',
      }}
    >
      {side ? (side.type === 'removed' ? '− ' : side.type === 'added' ? '+ ' : '  ') + side.text : ''}
    </Table.Td>
  );
  return (
    <Card withBorder data-testid="prompt-diff">
      <Title order={3} size="h5" mb="xs">
        {t('prompt.diffTitle', { from: diff.data.from.version_number, to: diff.data.to.version_number })}
      </Title>
      <Text size="sm" mb="xs">
        {t('prompt.diffStats', { added: diff.data.stats.added, removed: diff.data.stats.removed })}
      </Text>
      <Table.ScrollContainer minWidth={560}>
        <Table withColumnBorders>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('prompt.version', { number: diff.data.from.version_number })}</Table.Th>
              <Table.Th>{t('prompt.version', { number: diff.data.to.version_number })}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row, index) => (
              <Table.Tr key={index}>
                {cell(row.left)}
                {cell(row.right)}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Card>
  );
}
