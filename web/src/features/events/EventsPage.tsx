import { Badge, Button, Group, Select, Table } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useEvents } from './queries';
import type { EventRow } from '../../api/types';
import { useCan } from '../../app/session';
import { PageTitle } from '../../components/PageTitle';
import { EmptyState } from '../../components/states';
import { formatDate, formatMoney, isoDay } from '../../format';
import { DataTable } from '../../components/DataTable';
import { DateRangeFilter, type DayRange } from '../../components/DateRangeFilter';
import { CreateEvent } from './CreateEvent';
import { EVENT_STATUS_COLOUR } from './event-status';

export function EventsPage() {
  const { t, i18n } = useTranslation();
  const canEdit = useCan('event:edit');
  const [opened, { open, close }] = useDisclosure();
  const [status, setStatus] = useState<string | null>(null);
  const [range, setRange] = useState<DayRange>([null, null]);
  const query = {
    limit: 100,
    ...(status ? { status: status as EventRow['status'] } : {}),
    ...(range[0] ? { from_date: isoDay(range[0])! } : {}),
    ...(range[1] ? { to_date: isoDay(range[1])! } : {}),
  };
  const events = useEvents(query);

  return (
    <>
      <PageTitle title={t('events.title')}>
        {canEdit && <Button onClick={open}>{t('events.create')}</Button>}
      </PageTitle>
      <CreateEvent opened={opened} onClose={close} />
      <Group mb="md" align="flex-end">
        <Select
          label={t('events.status')}
          clearable
          value={status}
          onChange={setStatus}
          data={['draft', 'selling', 'waitlist', 'completed', 'cancelled'].map((s) => ({
            value: s,
            label: t(`events.statuses.${s}`),
          }))}
          w={170}
        />
        <DateRangeFilter label={t('events.dateRange')} value={range} onChange={setRange} />
      </Group>
      <DataTable
        query={events}
        isEmpty={events.data?.data.length === 0}
        empty={
          <EmptyState
            title={t('events.emptyTitle')}
            text={canEdit ? t('events.emptyText') : t('events.emptyTextViewer')}
            action={canEdit && <Button onClick={open}>{t('events.create')}</Button>}
          />
        }
        columns={[
          t('events.date'),
          t('events.eventTitle'),
          t('events.status'),
          { label: t('events.booked'), align: 'right' as const },
          { label: t('events.price'), align: 'right' as const },
        ]}
        minWidth={560}
        highlightOnHover
      >
        {events.data?.data.map((event) => (
          <Table.Tr key={event.id}>
            <Table.Td>{formatDate(event.event_date, i18n.language)}</Table.Td>
            <Table.Td>
              <Link to={`/events/${event.id}`}>{event.title}</Link>
            </Table.Td>
            <Table.Td>
              <Badge color={EVENT_STATUS_COLOUR[event.status]} variant="light">
                {t(`events.statuses.${event.status}`)}
              </Badge>
            </Table.Td>
            <Table.Td ta="right">
              {event.capacity_booked} / {event.capacity_total}
              {event.capacity_waitlist > 0 && ` (+${event.capacity_waitlist})`}
            </Table.Td>
            <Table.Td ta="right">
              {event.payment_model === 'free'
                ? t('events.payment.free')
                : formatMoney(event.price, event.currency, i18n.language)}
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </>
  );
}
