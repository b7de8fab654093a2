import '@mantine/dates/styles.css';
import { Badge, Button, Group, Select, Table, Text } from '@mantine/core';
import { DatePickerInput } from '@mantine/dates';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { api, call } from '../../api/client';
import type { Conversation } from '../../api/types';
import { PageTitle } from '../../components/PageTitle';
import { EmptyState, ErrorAlert, Loading } from '../../components/states';
import { formatDateTime } from '../../format';
import { DataTable } from '../../components/DataTable';

export const STATUS_COLOUR: Record<Conversation['status'], string> = {
  active: 'green',
  ended: 'gray',
  handed_over: 'orange',
};

function isoDay(value: string | Date | null): string | undefined {
  if (!value) return undefined;
  return typeof value === 'string' ? value.slice(0, 10) : value.toISOString().slice(0, 10);
}

export function ConversationsPage() {
  const { t, i18n } = useTranslation();
  const [botId, setBotId] = useState<string | null>(null);
  const [channel, setChannel] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [range, setRange] = useState<[string | null, string | null]>([null, null]);
  const bots = useQuery({
    queryKey: ['bots', null],
    queryFn: () => call(api.GET('/api/bots', { params: { query: { limit: 100 } } })),
  });
  const botName = new Map((bots.data?.data ?? []).map((b) => [b.id, b.name]));
  const query = {
    limit: 50,
    ...(botId ? { bot_id: botId } : {}),
    ...(channel ? { channel: channel as Conversation['channel'] } : {}),
    ...(status ? { status: status as Conversation['status'] } : {}),
    ...(range[0] ? { from: `${isoDay(range[0])}T00:00:00Z` } : {}),
    ...(range[1] ? { to: `${isoDay(range[1])}T23:59:59Z` } : {}),
  };
  const list = useInfiniteQuery({
    queryKey: ['conversations', query],
    queryFn: ({ pageParam }) =>
      call(
        api.GET('/api/conversations', {
          params: { query: { ...query, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_cursor,
  });
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];

  return (
    <>
      <PageTitle title={t('conversations.title')} />
      <Group mb="md" align="flex-end" gap="sm">
        <Select
          label={t('conversations.bot')}
          clearable
          value={botId}
          onChange={setBotId}
          data={(bots.data?.data ?? []).map((b) => ({ value: b.id, label: b.name }))}
          w={200}
        />
        <Select
          label={t('conversations.channel')}
          clearable
          value={channel}
          onChange={setChannel}
          data={['api', 'email', 'webhook'].map((c) => ({ value: c, label: t(`channels.${c}`) }))}
          w={150}
        />
        <Select
          label={t('conversations.status')}
          clearable
          value={status}
          onChange={setStatus}
          data={['active', 'ended', 'handed_over'].map((s) => ({
            value: s,
            label: t(`conversations.statuses.${s}`),
          }))}
          w={170}
        />
        <DatePickerInput
          type="range"
          label={t('conversations.dates')}
          clearable
          value={range}
          onChange={(value) => setRange(value as [string | null, string | null])}
          w={240}
        />
      </Group>
      {list.isPending ? (
        <Loading />
      ) : list.error ? (
        <ErrorAlert error={list.error} onRetry={() => void list.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title={t('conversations.emptyTitle')} text={t('conversations.emptyText')} />
      ) : (
        <>
          <DataTable
            columns={[
              { label: t('conversations.started') },
              { label: t('conversations.bot') },
              { label: t('conversations.sender') },
              { label: t('conversations.channel') },
              { label: t('conversations.status') },
              { label: t('conversations.messages'), align: 'right' as const },
            ]}
            minWidth={640}
            highlightOnHover
          >
            {rows.map((c) => (
              <Table.Tr key={c.id} data-testid="conversation-row">
                <Table.Td>
                  <Link to={`/conversations/${c.id}`}>{formatDateTime(c.created_at, i18n.language)}</Link>
                </Table.Td>
                <Table.Td>{botName.get(c.bot_id) ?? '—'}</Table.Td>
                <Table.Td>
                  <Text size="sm" truncate maw={180}>
                    {c.sender_id ?? '—'}
                  </Text>
                </Table.Td>
                <Table.Td>{t(`channels.${c.channel}`)}</Table.Td>
                <Table.Td>
                  <Badge color={STATUS_COLOUR[c.status]} variant="light">
                    {t(`conversations.statuses.${c.status}`)}
                  </Badge>
                </Table.Td>
                <Table.Td ta="right">{c.message_count}</Table.Td>
              </Table.Tr>
            ))}
          </DataTable>
          {list.hasNextPage && (
            <Button
              variant="default"
              mt="sm"
              onClick={() => void list.fetchNextPage()}
              loading={list.isFetchingNextPage}
            >
              {t('common.more')}
            </Button>
          )}
        </>
      )}
    </>
  );
}
