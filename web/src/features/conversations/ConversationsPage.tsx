import '@mantine/dates/styles.css';
import { Badge, Checkbox, Group, Select, Table, Text } from '@mantine/core';
import { DatePickerInput } from '@mantine/dates';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Conversation } from '../../api/types';
import { PageTitle } from '../../components/PageTitle';
import { EmptyState } from '../../components/states';
import { formatDateTime } from '../../format';
import { LoadMore } from '../../components/LoadMore';
import { DataTable } from '../../components/DataTable';
import { useConversationList, type ConversationFilters } from './queries';
import { useBots } from '../bots/queries';

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
  const [rating, setRating] = useState<string | null>(null);
  const [review, setReview] = useState<string | null>(null);
  const [handedOver, setHandedOver] = useState<string | null>(null);
  const [noKnowledge, setNoKnowledge] = useState(false);
  const bots = useBots();
  const botName = new Map((bots.data?.data ?? []).map((b) => [b.id, b.name]));
  const query: ConversationFilters = {
    limit: 50,
    ...(rating ? { rating: Number(rating) } : {}),
    ...(review ? { review: review as 'good' | 'bad' } : {}),
    ...(handedOver ? { handed_over: handedOver === 'yes' } : {}),
    ...(noKnowledge ? { no_knowledge: true } : {}),
    ...(botId ? { bot_id: botId } : {}),
    ...(channel ? { channel: channel as Conversation['channel'] } : {}),
    ...(status ? { status: status as Conversation['status'] } : {}),
    ...(range[0] ? { from: `${isoDay(range[0])}T00:00:00Z` } : {}),
    ...(range[1] ? { to: `${isoDay(range[1])}T23:59:59Z` } : {}),
  };
  const list = useConversationList(query);
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
        <Select
          label={t('review.filterRating')}
          clearable
          value={rating}
          onChange={setRating}
          data={['1', '2', '3', '4', '5'].map((r) => ({ value: r, label: t('review.stars', { value: r }) }))}
          w={130}
        />
        <Select
          label={t('review.filterReview')}
          clearable
          value={review}
          onChange={setReview}
          data={(['good', 'bad'] as const).map((v) => ({ value: v, label: t(`review.verdicts.${v}`) }))}
          w={170}
        />
        <Select
          label={t('review.filterHandedOver')}
          clearable
          value={handedOver}
          onChange={setHandedOver}
          data={[
            { value: 'yes', label: t('review.yes') },
            { value: 'no', label: t('review.no') },
          ]}
          w={140}
        />
        <Checkbox
          label={t('review.filterNoKnowledge')}
          checked={noKnowledge}
          onChange={(e) => setNoKnowledge(e.currentTarget.checked)}
          mb={8}
        />
      </Group>
      <DataTable
        query={list}
        isEmpty={rows.length === 0}
        empty={<EmptyState title={t('conversations.emptyTitle')} text={t('conversations.emptyText')} />}
        columns={[
          t('conversations.started'),
          t('conversations.bot'),
          t('conversations.sender'),
          t('conversations.channel'),
          t('conversations.status'),
          t('review.rating'),
          { label: t('conversations.messages'), align: 'right' as const },
        ]}
        minWidth={720}
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
            <Table.Td>{c.rating ? t('review.stars', { value: c.rating }) : '—'}</Table.Td>
            <Table.Td ta="right">{c.message_count}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <LoadMore list={list} />
    </>
  );
}
