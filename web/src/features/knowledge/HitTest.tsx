import { Alert, Badge, Box, Button, Group, Table, Text, TextInput } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/states';
import { formatScore } from '../../format';
import { useKnowledgeSearch } from './queries';
import { Section } from '../../components/Section';
import { DataTable } from '../../components/DataTable';

/** Rows of the hit test with the threshold line placed before the first result below it. */
export function splitAtThreshold<T extends { score: number }>(results: readonly T[], minScore: number) {
  return {
    above: results.filter((r) => r.score >= minScore),
    below: results.filter((r) => r.score < minScore),
  };
}

export function HitTest({ botId, ask }: { botId: string; ask?: { question: string; at: number } }) {
  const { t, i18n } = useTranslation();
  const [question, setQuestion] = useState('');
  const search = useKnowledgeSearch(botId);
  const { mutate } = search;
  // After an entry made from an unanswered question: test that question at once.
  useEffect(() => {
    if (!ask) return;
    setQuestion(ask.question);
    mutate(ask.question);
  }, [ask, mutate]);
  const data = search.data;
  const parts = data ? splitAtThreshold(data.results, data.min_score) : null;
  const row = (r: NonNullable<typeof data>['results'][number]) => (
    <Table.Tr key={r.chunk_id} data-testid="hit">
      <Table.Td>
        {r.title}
        <Text size="xs" c="dimmed" lineClamp={2}>
          {r.content}
        </Text>
      </Table.Td>
      <Table.Td ta="right">{formatScore(r.score, i18n.language)}</Table.Td>
      <Table.Td>
        {r.used_in_chat ? (
          <Badge color="green" variant="light">
            {t('knowledge.used')}
          </Badge>
        ) : (
          <Badge color="gray" variant="light">
            {t('knowledge.notUsed')}
          </Badge>
        )}
      </Table.Td>
    </Table.Tr>
  );
  return (
    <Section title={t('knowledge.hitTest')}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (question.trim()) search.mutate(question.trim());
        }}
      >
        <Group align="flex-end">
          <TextInput
            label={t('knowledge.question')}
            value={question}
            onChange={(e) => setQuestion(e.currentTarget.value)}
            style={{ flex: 1, minWidth: 200 }}
          />
          <Button type="submit" loading={search.isPending}>
            {t('knowledge.test')}
          </Button>
        </Group>
      </form>
      {search.error && <ErrorAlert error={search.error} />}
      {data && parts && (
        <Box mt="md" data-testid="hit-results">
          <Alert
            mb="sm"
            data-testid="hit-decision"
            color={data.decision.answer ? 'green' : 'orange'}
            title={t(data.decision.answer ? 'knowledge.decision.answer' : 'knowledge.decision.handOver')}
          >
            <Text size="sm">{t(`knowledge.decision.reasons.${data.decision.reason}`)}</Text>
            {data.decision.missing_terms.length > 0 && (
              <Text size="sm" data-testid="hit-missing-terms">
                {t('knowledge.decision.missing', { terms: data.decision.missing_terms.join(', ') })}
              </Text>
            )}
            {data.decision.key_terms.length > 0 && (
              <Text size="xs" c="dimmed">
                {t('knowledge.decision.keyTerms', { terms: data.decision.key_terms.join(', ') })}
              </Text>
            )}
          </Alert>
          {data.results.length === 0 ? (
            <Text c="dimmed">{t('knowledge.noHits')}</Text>
          ) : (
            <DataTable
              columns={[
                t('knowledge.entry'),
                { label: t('knowledge.score'), align: 'right' as const },
                t('knowledge.inChat'),
              ]}
              minWidth={420}
            >
              {parts.above.map(row)}
              <Table.Tr data-testid="threshold">
                <Table.Td colSpan={3} style={{ borderTop: '2px dashed var(--mantine-color-red-8)' }}>
                  <Text size="xs" c="red.9" fw={600}>
                    {t('knowledge.threshold', { score: formatScore(data.min_score, i18n.language) })}
                  </Text>
                </Table.Td>
              </Table.Tr>
              {parts.below.map(row)}
            </DataTable>
          )}
        </Box>
      )}
    </Section>
  );
}
