import {
  Alert,
  Badge,
  Box,
  Button,
  Card,
  Group,
  Progress,
  SegmentedControl,
  Stack,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCan } from '../../app/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { EmptyState, ErrorAlert } from '../../components/states';
import { formatScore } from '../../format';
import { useBotId } from '../bots/BotPage';
import { notify } from '../../components/notify';
import { ImportPanel } from './ImportPanel';
import { FileDrop } from '../../components/FileDrop';
import { EntryEditor } from './EntryEditor';
import {
  importTextFile,
  useCreateEntry,
  useDeleteEntry,
  useKnowledgeEntries,
  useKnowledgeSearch,
  useRefreshEntries,
  type EntryRef,
  type EntryScope,
} from './queries';
import { UnansweredQuestions } from './UnansweredQuestions';
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
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        {t('knowledge.hitTest')}
      </Title>
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
                { label: t('knowledge.entry') },
                { label: t('knowledge.score'), align: 'right' as const },
                { label: t('knowledge.inChat') },
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
    </Card>
  );
}

function Import({ botId, onDone }: { botId: string; onDone: () => void }) {
  const { t } = useTranslation();
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const importFiles = async (files: File[]) => {
    setError(null);
    setProgress({ done: 0, total: files.length });
    try {
      // One request per file, so progress is real and one bad file does not stop the others.
      for (const [index, file] of files.entries()) {
        const content = await file.text();
        await importTextFile(botId, file.name, content);
        setProgress({ done: index + 1, total: files.length });
      }
      notify(t('knowledge.imported', { count: files.length }));
    } catch (e) {
      setError(e);
    } finally {
      onDone();
    }
  };
  return (
    <Stack gap="xs">
      <FileDrop
        label={t('knowledge.dropzone')}
        onFiles={(files) => void importFiles(files)}
        accept={['text/plain', 'text/markdown', '.md', '.txt']}
        size="sm"
      />
      {progress && (
        <Progress
          value={(progress.done / progress.total) * 100}
          aria-label={t('knowledge.importProgress', { done: progress.done, total: progress.total })}
        />
      )}
      {error !== null && <ErrorAlert error={error} />}
    </Stack>
  );
}

export function KnowledgeTab() {
  const { t } = useTranslation();
  const botId = useBotId();
  const canEdit = useCan('knowledge:edit');
  const entries = useKnowledgeEntries(botId);
  const [editing, setEditing] = useState<EntryRef | null>(null);
  const [fromQuestion, setFromQuestion] = useState<string | null>(null);
  const [ask, setAsk] = useState<{ question: string; at: number }>();
  const refreshEntries = useRefreshEntries(botId);
  const form = useForm({
    initialValues: { title: '', content: '', scope: 'bot' as EntryScope },
    validate: {
      title: (v) => (v.trim() ? null : t('knowledge.titleRequired')),
      content: (v) => (v.trim() ? null : t('knowledge.contentRequired')),
    },
  });
  // Tenant-wide entries are shared by every bot of the tenant; bot entries belong to this bot.
  const create = useCreateEntry(botId, () => {
    form.reset();
    notify(t('knowledge.added'));
    if (fromQuestion) {
      setAsk({ question: fromQuestion, at: Date.now() });
      setFromQuestion(null);
    }
  });
  const remove = useDeleteEntry(botId);

  return (
    <Stack>
      <UnansweredQuestions
        botId={botId}
        canEdit={canEdit}
        onUse={(group) => {
          form.setValues({ title: group.question, content: group.person_answer ?? '', scope: 'bot' });
          setFromQuestion(group.question);
          document.getElementById('knowledge-add')?.scrollIntoView?.({ behavior: 'smooth' });
        }}
      />
      <HitTest botId={botId} ask={ask} />
      {canEdit && <ImportPanel botId={botId} onDone={refreshEntries} />}
      {canEdit && (
        <Card withBorder id="knowledge-add">
          <Title order={2} size="h4" mb="xs">
            {t('knowledge.add')}
          </Title>
          <form onSubmit={form.onSubmit((values) => create.mutate(values))} noValidate>
            <Stack>
              {create.error && <ErrorAlert error={create.error} />}
              <SegmentedControl
                aria-label={t('knowledge.scope')}
                data={[
                  { value: 'bot', label: t('knowledge.forThisBot') },
                  { value: 'tenant', label: t('knowledge.forAllBots') },
                ]}
                {...form.getInputProps('scope')}
              />
              <TextInput label={t('knowledge.title')} required {...form.getInputProps('title')} />
              <Textarea
                label={t('knowledge.content')}
                required
                autosize
                minRows={3}
                {...form.getInputProps('content')}
              />
              <Group>
                <Button type="submit" loading={create.isPending}>
                  {t('knowledge.addSubmit')}
                </Button>
              </Group>
              <Import botId={botId} onDone={refreshEntries} />
            </Stack>
          </form>
        </Card>
      )}
      <Card withBorder>
        <Title order={2} size="h4" mb="xs">
          {t('knowledge.entries')}
        </Title>
        {remove.error && <ErrorAlert error={remove.error} />}
        {editing && (
          <EntryEditor
            botId={botId}
            entry={editing}
            onClose={() => setEditing(null)}
            onSaved={refreshEntries}
          />
        )}
        <DataTable
          query={entries}
          isEmpty={entries.data?.data.length === 0}
          empty={<EmptyState title={t('knowledge.emptyTitle')} text={t('knowledge.emptyText')} />}
          columns={[
            { label: t('knowledge.title') },
            { label: t('knowledge.scope') },
            { label: t('common.actions') },
          ]}
          minWidth={420}
        >
          {entries.data?.data.map((entry) => (
            <Table.Tr key={entry.id}>
              <Table.Td>
                {entry.title}
                <Text size="xs" c="dimmed" lineClamp={1}>
                  {entry.content_preview}
                </Text>
              </Table.Td>
              <Table.Td>
                <Badge variant="light">{t(`knowledge.scopes.${entry.scope}`)}</Badge>
              </Table.Td>
              <Table.Td>
                {canEdit && (
                  <Group gap={4} wrap="nowrap">
                    <Button
                      size="compact-xs"
                      variant="light"
                      aria-label={t('knowledge.editOf', { title: entry.title })}
                      onClick={() => setEditing(entry)}
                    >
                      {t('knowledge.edit')}
                    </Button>
                    <ConfirmButton
                      aria-label={t('knowledge.deleteOf', { title: entry.title })}
                      title={t('knowledge.delete')}
                      text={t(
                        entry.scope === 'tenant'
                          ? 'knowledge.deleteTenantConfirm'
                          : 'knowledge.deleteConfirm',
                        { title: entry.title },
                      )}
                      onConfirm={() => remove.mutate(entry)}
                    />
                  </Group>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      </Card>
    </Stack>
  );
}
