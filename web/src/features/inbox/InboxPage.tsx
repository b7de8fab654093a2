import {
  Alert,
  Badge,
  Button,
  Card,
  Grid,
  Group,
  SegmentedControl,
  Select,
  Stack,
  Table,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { api, call } from '../../api/client';
import { DataTable } from '../../components/DataTable';
import { notify } from '../../components/notify';
import { PageTitle } from '../../components/PageTitle';
import { EmptyState, ErrorAlert, errorMessage, Loading } from '../../components/states';
import { formatDateTime } from '../../format';
import { useCan, useMe } from '../../app/session';
import { INBOX_KEY, notificationsAllowed } from './live';

type View = 'all' | 'mine' | 'unassigned';

const STATE_COLOUR: Record<string, string> = {
  waiting: 'orange',
  with_person: 'blue',
  bot: 'green',
  closed: 'gray',
};

/**
 * The inbox: conversations the bot handed over (or staff took over), newest activity first, and
 * the selected one's transcript with claim, reply, note, assign, give back and close. Live
 * through the server's event stream (see live.ts).
 */
/** Conversations per page of the list; "more" loads the next. */
const INBOX_PAGE = 50;

export function InboxPage() {
  const { t, i18n } = useTranslation();
  const [params, setParams] = useSearchParams();
  const [view, setView] = useState<View>('all');
  const [botId, setBotId] = useState<string | null>(null);
  const selected = params.get('c');
  const list = useInfiniteQuery({
    queryKey: [...INBOX_KEY, 'list', view, botId],
    queryFn: ({ pageParam }) =>
      call(
        api.GET('/api/inbox', {
          params: {
            query: {
              view,
              limit: INBOX_PAGE,
              ...(botId ? { bot_id: botId } : {}),
              ...(pageParam ? { cursor: pageParam } : {}),
            },
          },
        }),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_cursor,
  });
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
          onChange={(v) => setView(v as View)}
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
            columns={[
              { label: t('inbox.customer') },
              { label: t('inbox.reason') },
              { label: t('inbox.lastActivity') },
            ]}
            loading={list.isPending}
            error={list.error}
            onRetry={() => void list.refetch()}
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
                    <Text size="sm" fw={c.unread ? 700 : 400}>
                      {c.sender_id ?? t('inbox.anonymous')}
                    </Text>
                  </Group>
                  <Text size="xs" c="dimmed">
                    {c.bot_name} · {t(`channels.${c.channel}`, { defaultValue: c.channel })}
                  </Text>
                  {c.handover_question && (
                    <Text size="xs" lineClamp={2} fs="italic">
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
          {list.hasNextPage && (
            <Button
              variant="default"
              mt="sm"
              onClick={() => void list.fetchNextPage()}
              loading={list.isFetchingNextPage}
              data-testid="inbox-more"
            >
              {t('common.more')}
            </Button>
          )}
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 7 }}>
          {selected ? <ConversationPane id={selected} /> : <Text c="dimmed">{t('inbox.pick')}</Text>}
        </Grid.Col>
      </Grid>
    </>
  );
}

function ConversationPane({ id }: { id: string }) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const me = useMe();
  const canWork = useCan('inbox:work');
  const canManage = useCan('user:manage');
  const [text, setText] = useState('');
  const [assignee, setAssignee] = useState<string | null>(null);
  const detail = useQuery({
    queryKey: [...INBOX_KEY, 'conversation', id],
    queryFn: () => call(api.GET('/api/inbox/{id}', { params: { path: { id } } })),
  });
  const team = useQuery({
    queryKey: ['users', 'inbox'],
    queryFn: () => call(api.GET('/api/users', { params: { query: { limit: 100 } } })),
    enabled: canManage,
  });
  // Opening a conversation reads it.
  useEffect(() => {
    void call(api.POST('/api/inbox/{id}/read', { params: { path: { id } } }))
      .then(() => queryClient.invalidateQueries({ queryKey: [...INBOX_KEY, 'unread'] }))
      .catch(() => undefined);
  }, [id, detail.data?.message_count, queryClient]);

  const done = (message: string) => {
    notify(message);
    void queryClient.invalidateQueries({ queryKey: INBOX_KEY });
  };
  const fail = (error: unknown) => {
    notify(errorMessage(error, t('inbox.failed')), 'red');
    void queryClient.invalidateQueries({ queryKey: INBOX_KEY });
  };
  const path = { params: { path: { id } } };
  const action = useMutation({
    mutationFn: (kind: 'claim' | 'take-over' | 'give-back' | 'close') => {
      switch (kind) {
        case 'claim':
          return call(api.POST('/api/inbox/{id}/claim', path));
        case 'take-over':
          return call(api.POST('/api/inbox/{id}/take-over', path));
        case 'give-back':
          return call(api.POST('/api/inbox/{id}/give-back', path));
        case 'close':
          return call(api.POST('/api/inbox/{id}/close', path));
      }
    },
    onSuccess: (_data, kind) => done(t(`inbox.done.${kind}`)),
    onError: fail,
  });
  const send = useMutation({
    mutationFn: async (kind: 'reply' | 'note') => {
      if (kind === 'reply') await call(api.POST('/api/inbox/{id}/reply', { ...path, body: { text } }));
      else await call(api.POST('/api/inbox/{id}/notes', { ...path, body: { text } }));
    },
    onSuccess: (_data, kind) => {
      setText('');
      done(t(`inbox.done.${kind}`));
    },
    onError: fail,
  });
  const assign = useMutation({
    mutationFn: (userId: string | null) =>
      call(api.POST('/api/inbox/{id}/assign', { ...path, body: { user_id: userId } })),
    onSuccess: () => done(t('inbox.done.assign')),
    onError: fail,
  });

  if (detail.isPending) return <Loading />;
  if (detail.error) return <ErrorAlert error={detail.error} onRetry={() => void detail.refetch()} />;
  const c = detail.data;
  const mine = c.assigned_user_id === me.user.id;
  const busy = action.isPending || send.isPending || assign.isPending;
  const colleagues = (team.data?.data ?? []).filter(
    (u) => u.is_active && ['owner', 'admin', 'editor', 'agent'].includes(u.role),
  );

  return (
    <Card withBorder>
      <Group justify="space-between" mb="xs">
        <div>
          <Title order={3}>{c.sender_id ?? t('inbox.anonymous')}</Title>
          <Text size="sm" c="dimmed">
            {c.bot_name} · {t(`channels.${c.channel}`, { defaultValue: c.channel })}
          </Text>
        </div>
        <Badge color={STATE_COLOUR[c.state]} data-testid="inbox-state">
          {t(`inbox.state.${c.state}`)}
          {c.assigned_user_name ? ` · ${c.assigned_user_name}` : ''}
        </Badge>
      </Group>
      {c.handover_question && (
        <Alert
          color="orange"
          mb="sm"
          title={c.handover_reason ? t(`inbox.reasons.${c.handover_reason}`) : undefined}
        >
          <Text size="sm" fw={600}>
            {c.handover_question}
          </Text>
        </Alert>
      )}
      <Stack gap="xs" mb="sm" mah={420} style={{ overflowY: 'auto' }} data-testid="inbox-transcript">
        {c.messages.map((m) => (
          <Card
            key={m.id}
            padding="xs"
            bg={
              m.role === 'user'
                ? 'var(--mantine-color-gray-light)'
                : m.from_person
                  ? 'var(--mantine-color-blue-light)'
                  : undefined
            }
            withBorder={m.role !== 'user'}
            ml={m.role === 'user' ? 0 : 'xl'}
            mr={m.role === 'user' ? 'xl' : 0}
          >
            <Text size="xs" c="dimmed">
              {m.role === 'user'
                ? t('inbox.fromCustomer')
                : m.from_person
                  ? (m.author_name ?? t('inbox.fromPerson'))
                  : t('inbox.fromBot')}{' '}
              · {formatDateTime(m.created_at, i18n.language)}
            </Text>
            <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
              {m.content}
            </Text>
          </Card>
        ))}
      </Stack>
      {c.notes.length > 0 && (
        <Stack gap={4} mb="sm">
          <Text size="sm" fw={600}>
            {t('inbox.notes')}
          </Text>
          {c.notes.map((n) => (
            <Text key={n.id} size="sm" bg="var(--mantine-color-yellow-light)" px={6} py={2}>
              {n.author_name ?? ''} ({formatDateTime(n.created_at, i18n.language)}): {n.content}
            </Text>
          ))}
        </Stack>
      )}
      {canWork && c.state !== 'closed' && (
        <>
          <Textarea
            label={t('inbox.replyLabel')}
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            autosize
            minRows={2}
            maxLength={4000}
          />
          <Group mt="xs" gap="xs">
            <Button
              onClick={() => send.mutate('reply')}
              disabled={!text.trim() || busy || (c.state === 'with_person' && !mine)}
            >
              {t('inbox.reply')}
            </Button>
            <Button variant="light" onClick={() => send.mutate('note')} disabled={!text.trim() || busy}>
              {t('inbox.note')}
            </Button>
            {c.state === 'waiting' && (
              <Button variant="outline" onClick={() => action.mutate('claim')} disabled={busy}>
                {t('inbox.claim')}
              </Button>
            )}
            {c.state === 'bot' && (
              <Button variant="outline" onClick={() => action.mutate('take-over')} disabled={busy}>
                {t('inbox.takeOver')}
              </Button>
            )}
            {c.state !== 'bot' && (
              <Button variant="outline" onClick={() => action.mutate('give-back')} disabled={busy}>
                {t('inbox.giveBack')}
              </Button>
            )}
            <Button variant="subtle" color="gray" onClick={() => action.mutate('close')} disabled={busy}>
              {t('inbox.close')}
            </Button>
          </Group>
          {c.state !== 'bot' && (
            <Group mt="xs" gap="xs" align="flex-end">
              {canManage ? (
                <Select
                  label={t('inbox.assignTo')}
                  value={assignee}
                  onChange={setAssignee}
                  data={colleagues.map((u) => ({
                    value: u.id,
                    label: [u.first_name, u.last_name].filter(Boolean).join(' ') || u.email,
                  }))}
                  w={220}
                />
              ) : null}
              <Button
                variant="light"
                onClick={() => assign.mutate(canManage ? assignee : me.user.id)}
                disabled={busy || (canManage && !assignee)}
              >
                {canManage ? t('inbox.assign') : t('inbox.assignMe')}
              </Button>
            </Group>
          )}
        </>
      )}
    </Card>
  );
}
