import {
  Badge,
  Button,
  Card,
  Group,
  SegmentedControl,
  Stack,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCan } from '../../app/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { EmptyState, ErrorAlert } from '../../components/states';
import { useBotId } from '../bots/BotPage';
import { notify } from '../../components/notify';
import { ImportPanel } from './ImportPanel';
import { EntryEditor } from './EntryEditor';
import {
  useCreateEntry,
  useDeleteEntry,
  useKnowledgeEntries,
  useRefreshEntries,
  type EntryRef,
  type EntryScope,
} from './queries';
import { UnansweredQuestions } from './UnansweredQuestions';
import { DataTable } from '../../components/DataTable';
import { HitTest } from './HitTest';
import { Section } from '../../components/Section';
import { FormActions } from '../../components/FormActions';
import { Import } from './Import';

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
              <FormActions start pending={create.isPending} submit={t('knowledge.addSubmit')} />
              <Import botId={botId} onDone={refreshEntries} />
            </Stack>
          </form>
        </Card>
      )}
      <Section title={t('knowledge.entries')}>
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
          columns={[t('knowledge.title'), t('knowledge.scope'), t('common.actions')]}
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
      </Section>
    </Stack>
  );
}
