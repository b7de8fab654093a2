import { Badge, Button, Grid, Group, SegmentedControl, Select, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { customerName } from '../../labels';
import { useSearchParams } from 'react-router';
import { DataTable } from '../../components/DataTable';
import { LoadMore } from '../../components/LoadMore';
import { PageTitle } from '../../components/PageTitle';
import { EmptyState } from '../../components/states';
import { formatDateTime } from '../../format';
import { InboxConversation } from './InboxConversation';
import { notificationsAllowed } from './live';
import { useInboxList, type InboxView } from './queries';
import { STATE_COLOUR } from './state-colour';

/**
 * The inbox: conversations the bot handed over (or staff took over), newest activity first, and
 * the selected one's transcript with claim, reply, note, assign, give back and close. Live
 * through the server's event stream (see live.ts).
 */
export function InboxPage() {
  const { t, i18n } = useTranslation();
  const [params, setParams] = useSearchParams();
  const [view, setView] = useState<InboxView>('all');
  const [botId, setBotId] = useState<string | null>(null);
  const selected = params.get('c');
  const list = useInboxList(view, botId);
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  // The bots seen so far name the filter's choices (agents may not list the tenant's bots).
  const [seenBots] = useState(() => new Map<string, string>());
  for (const c of rows) seenBots.set(c.bot_id, c.bot_name);
  const bots = [...seenBots.entries()];
  const [permission, setPermission] = useState(
    typeof Notification === 'undefined' ? 'unsupported' : Notification.permission,
  );

  return (
    <>
      <PageTitle title={t('inbox.title')}>
        {permission === 'default' && (
          <Button
            variant="light"
            h="auto"
            py={6}
            // On a phone the label wraps instead of being cut off.
            styles={{ label: { whiteSpace: 'normal' } }}
            onClick={() => void Notification.requestPermission().then((p) => setPermission(p))}
          >
            {t('inbox.notifyButton')}
          </Button>
        )}
        {notificationsAllowed() && (
          <Badge color="green" variant="light">
            {t('inbox.notifyOn')}
          </Badge>
        )}
      </PageTitle>
      <Group mb="md" align="flex-end" gap="sm">
        <SegmentedControl
          value={view}
          onChange={(v) => setView(v as InboxView)}
          data={(['all', 'mine', 'unassigned'] as const).map((v) => ({
            value: v,
            label: t(`inbox.view.${v}`),
          }))}
        />
        <Select
          aria-label={t('inbox.bot')}
          placeholder={t('inbox.bot')}
          clearable
          value={botId}
          onChange={setBotId}
          data={bots.map(([id, name]) => ({ value: id, label: name }))}
          w={200}
        />
      </Group>
      <Grid>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <DataTable
            columns={[t('inbox.customer'), t('inbox.reason'), t('inbox.lastActivity')]}
            query={list}
            isEmpty={rows.length === 0}
            empty={<EmptyState title={t('inbox.emptyTitle')} text={t('inbox.emptyText')} />}
            minWidth={360}
            highlightOnHover
          >
            {rows.map((c) => (
              <Table.Tr
                key={c.id}
                onClick={() => setParams({ c: c.id })}
                style={{ cursor: 'pointer' }}
                bg={c.id === selected ? 'var(--mantine-color-blue-light)' : undefined}
                data-testid="inbox-row"
              >
                <Table.Td>
                  <Group gap={6} wrap="nowrap">
                    {c.unread && (
                      <Badge size="xs" color="red" aria-label={t('inbox.unread')}>
                        •
                      </Badge>
                    )}
                    <Text
                      size="sm"
                      fw={c.unread ? 700 : 400}
                      style={{ overflowWrap: 'anywhere', minWidth: 0 }}
                    >
                      {customerName(c, t) ?? t('inbox.anonymous')}
                    </Text>
                  </Group>
                  <Text size="xs" c="dimmed">
                    {c.bot_name} · {t(`channels.${c.channel}`, { defaultValue: c.channel })}
                  </Text>
                  {c.handover_question && (
                    <Text size="xs" lineClamp={2} fs="italic" style={{ overflowWrap: 'anywhere' }}>
                      „{c.handover_question}“
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <Badge color={STATE_COLOUR[c.state]} variant="light">
                    {t(`inbox.state.${c.state}`)}
                  </Badge>
                  {c.handover_reason && (
                    <Text size="xs" c="dimmed">
                      {t(`inbox.reasons.${c.handover_reason}`)}
                    </Text>
                  )}
                  {c.assigned_user_name && <Text size="xs">{c.assigned_user_name}</Text>}
                </Table.Td>
                <Table.Td>
                  <Text size="xs">{formatDateTime(c.last_message_at ?? c.created_at, i18n.language)}</Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </DataTable>
          <LoadMore list={list} testId="inbox-more" />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 7 }}>
          {selected ? <InboxConversation id={selected} /> : <Text c="dimmed">{t('inbox.pick')}</Text>}
        </Grid.Col>
      </Grid>
    </>
  );
}
