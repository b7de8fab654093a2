import { Badge, Button, Group, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { NoneYet } from '../../components/NoneYet';
import { Section } from '../../components/Section';
import { DataTable } from '../../components/DataTable';
import { ErrorAlert } from '../../components/states';
import { formatDateTime } from '../../format';
import { useResolveUnanswered, useUnanswered } from './queries';

export interface UnansweredGroup {
  key: string;
  question: string;
  count: number;
  handed_over: number;
  last_seen: string;
  person_answer: string | null;
}

/**
 * Questions the bot answered without knowledge or handed over, grouped by their words; one
 * click opens a new entry with the question (and a person's answer, when there is one).
 */
export function UnansweredQuestions({
  botId,
  canEdit,
  onUse,
}: {
  botId: string;
  canEdit: boolean;
  onUse: (group: UnansweredGroup) => void;
}) {
  const { t, i18n } = useTranslation();
  const groups = useUnanswered(botId);
  const clear = useResolveUnanswered(botId);
  return (
    <Section title={t('unanswered.title')} testId="unanswered">
      {clear.error && <ErrorAlert error={clear.error} />}
      <DataTable
        query={groups}
        isEmpty={groups.data?.data.length === 0}
        empty={<NoneYet text={t('unanswered.none')} />}
        columns={[
          t('unanswered.question'),
          { label: t('unanswered.count'), align: 'right' as const },
          t('unanswered.lastSeen'),
          ...(canEdit ? [t('unanswered.actions')] : []),
        ]}
        minWidth={480}
      >
        {groups.data?.data.map((g) => (
          <Table.Tr key={g.key}>
            <Table.Td>
              {g.question}
              {g.handed_over > 0 && (
                <Badge ml="xs" size="xs" color="orange">
                  {t('unanswered.handedOver', { count: g.handed_over })}
                </Badge>
              )}
              {g.person_answer && (
                <Text size="xs" c="dimmed">
                  {t('unanswered.personAnswer')}: {g.person_answer}
                </Text>
              )}
            </Table.Td>
            <Table.Td ta="right">{g.count}</Table.Td>
            <Table.Td>{formatDateTime(g.last_seen, i18n.language)}</Table.Td>
            {canEdit && (
              <Table.Td>
                <Group gap="xs" wrap="nowrap">
                  <Button
                    size="xs"
                    onClick={() => onUse(g)}
                    aria-label={t('unanswered.useFor', { question: g.question })}
                  >
                    {t('unanswered.use')}
                  </Button>
                  <Button
                    size="xs"
                    variant="default"
                    loading={clear.isPending && clear.variables === g.key}
                    onClick={() => clear.mutate(g.key)}
                    aria-label={t('unanswered.clearFor', { question: g.question })}
                  >
                    {t('unanswered.clear')}
                  </Button>
                </Group>
              </Table.Td>
            )}
          </Table.Tr>
        ))}
      </DataTable>
    </Section>
  );
}
