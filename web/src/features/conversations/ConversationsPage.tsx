import { Badge, Checkbox, Group, Select, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Conversation } from '../../api/types';
import { PageTitle } from '../../components/PageTitle';
import { EmptyState } from '../../components/states';
import { formatDateTime, isoDay } from '../../format';
import { LoadMore } from '../../components/LoadMore';
import { DataTable } from '../../components/DataTable';
import { DateRangeFilter, type DayRange } from '../../components/DateRangeFilter';
import { useConversationList, type ConversationFilters } from './queries';
import { useBots } from '../bots/queries';
import { channelLabel, senderLabel } from '../../labels';
import { CHANNEL_KINDS } from '../../channels';

export const STATUS_COLOUR: Record<Conversation['status'], string> = {
  active: 'green',
  ended: 'gray',
  handed_over: 'orange',
};

type FilterName = 'bot' | 'channel' | 'status' | 'rating' | 'review' | 'handedOver';

export function ConversationsPage() {
  const { t, i18n } = useTranslation();
  const [filters, setFilters] = useState<Record<FilterName, string | null>>({
    bot: null,
    channel: null,
    status: null,
    rating: null,
    review: null,
    handedOver: null,
  });
  const [range, setRange] = useState<DayRange>([null, null]);
  const [noKnowledge, setNoKnowledge] = useState(false);
  const bots = useBots();
  const botName = new Map((bots.data?.data ?? []).map((b) => [b.id, b.name]));
  const { bot, channel, status, rating, review, handedOver } = filters;
  const query: ConversationFilters = {
    limit: 50,
    ...(rating ? { rating: Number(rating) } : {}),
    ...(review ? { review: review as 'good' | 'bad' } : {}),
    ...(handedOver ? { handed_over: handedOver === 'yes' } : {}),
    ...(noKnowledge ? { no_knowledge: true } : {}),
    ...(bot ? { bot_id: bot } : {}),
    ...(channel ? { channel: channel as Conversation['channel'] } : {}),
    ...(status ? { status: status as Conversation['status'] } : {}),
    ...(range[0] ? { from: `${isoDay(range[0])}T00:00:00Z` } : {}),
    ...(range[1] ? { to: `${isoDay(range[1])}T23:59:59Z` } : {}),
  };
  const options = (values: readonly string[], label: (value: string) => string) =>
    values.map((value) => ({ value, label: label(value) }));
  /** The filters by a choice, in the order of the bar; the dates come after the status. */
  const selects: { name: FilterName; label: string; data: { value: string; label: string }[]; w: number }[] =
    [
      {
        name: 'bot',
        label: t('conversations.bot'),
        data: (bots.data?.data ?? []).map((b) => ({ value: b.id, label: b.name })),
        w: 200,
      },
      {
        name: 'channel',
        label: t('conversations.channel'),
        data: options(CHANNEL_KINDS, (c) => channelLabel(c, t)),
        w: 150,
      },
      {
        name: 'status',
        label: t('conversations.status'),
        data: options(['active', 'ended', 'handed_over'], (s) => t(`conversations.statuses.${s}`)),
        w: 170,
      },
      {
        name: 'rating',
        label: t('review.filterRating'),
        data: options(['1', '2', '3', '4', '5'], (r) => t('review.stars', { value: r })),
        w: 130,
      },
      {
        name: 'review',
        label: t('review.filterReview'),
        data: options(['good', 'bad'], (v) => t(`review.verdicts.${v}`)),
        w: 170,
      },
      {
        name: 'handedOver',
        label: t('review.filterHandedOver'),
        data: [
          { value: 'yes', label: t('review.yes') },
          { value: 'no', label: t('review.no') },
        ],
        w: 140,
      },
    ];
  const select = ({ name, ...props }: (typeof selects)[number]) => (
    <Select
      key={name}
      clearable
      value={filters[name]}
      onChange={(value) => setFilters((current) => ({ ...current, [name]: value }))}
      {...props}
    />
  );
  const list = useConversationList(query);
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];

  return (
    <>
      <PageTitle title={t('conversations.title')} />
      <Group mb="md" align="flex-end" gap="sm">
        {selects.slice(0, 3).map(select)}
        <DateRangeFilter label={t('conversations.dates')} value={range} onChange={setRange} />
        {selects.slice(3).map(select)}
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
                {senderLabel(c.sender_id, t) ?? '—'}
              </Text>
            </Table.Td>
            <Table.Td>{channelLabel(c.channel, t)}</Table.Td>
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
