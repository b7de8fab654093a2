import { Anchor, Badge, Breadcrumbs, Card, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { api, call } from '../../api/client';
import { PageTitle } from '../../components/PageTitle';
import { EmptyState, ErrorAlert, Loading } from '../../components/states';
import { formatDate, formatDateTime, formatMoney } from '../../format';
import { EVENT_STATUS_COLOUR } from '../events/EventsPage';
import { DataTable } from '../../components/DataTable';
import { useCan } from '../../app/session';
import { ContactActions, ContactConversations, NewContactButton } from './ContactActions';

const BOOKING_COLOUR: Record<string, string> = {
  confirmed: 'green',
  waitlist: 'orange',
  attended: 'blue',
  no_show: 'red',
  cancelled: 'gray',
};

function ContactBookings({ contactId }: { contactId: string }) {
  const { t, i18n } = useTranslation();
  const bookings = useQuery({
    queryKey: ['contact-bookings', contactId],
    queryFn: () =>
      call(
        api.GET('/api/contacts/{id}/bookings', {
          params: { path: { id: contactId }, query: { limit: 100 } },
        }),
      ),
  });
  return (
    <Card withBorder data-testid="contact-bookings">
      <Title order={2} size="h4" mb="xs">
        {t('contacts.bookings')}
      </Title>
      {bookings.isPending ? (
        <Loading />
      ) : bookings.error ? (
        <ErrorAlert error={bookings.error} onRetry={() => void bookings.refetch()} />
      ) : bookings.data.data.length === 0 ? (
        <Text c="dimmed" size="sm">
          {t('contacts.noBookings')}
        </Text>
      ) : (
        <DataTable
          columns={[
            { label: t('events.date') },
            { label: t('events.eventTitle') },
            { label: t('events.status') },
            { label: t('events.paymentState') },
          ]}
          minWidth={320}
        >
          {bookings.data.data.map((b) => (
            <Table.Tr key={b.id}>
              <Table.Td>{formatDate(b.event_date, i18n.language)}</Table.Td>
              <Table.Td>
                <Link to={`/events/${b.event_id}`}>{b.event_title}</Link>
                <Text size="xs" c="dimmed">
                  <Badge
                    size="xs"
                    color={EVENT_STATUS_COLOUR[b.event_status as keyof typeof EVENT_STATUS_COLOUR]}
                  >
                    {t(`events.statuses.${b.event_status}`)}
                  </Badge>
                </Text>
              </Table.Td>
              <Table.Td>
                <Badge color={BOOKING_COLOUR[b.status] ?? 'gray'}>
                  {t(`events.bookingStatuses.${b.status}`)}
                  {b.status === 'waitlist' && b.waitlist_position !== null && ` #${b.waitlist_position}`}
                </Badge>
              </Table.Td>
              <Table.Td>
                {t(`events.paymentStatuses.${b.payment_status}`)}
                {b.payment_amount !== null &&
                  ` · ${formatMoney(b.payment_amount, b.currency, i18n.language)}`}
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      )}
    </Card>
  );
}

function ContactLeads({ contactId }: { contactId: string }) {
  const { t, i18n } = useTranslation();
  const leads = useQuery({
    queryKey: ['contact-leads', contactId],
    queryFn: () =>
      call(
        api.GET('/api/contacts/{id}/leads', { params: { path: { id: contactId }, query: { limit: 100 } } }),
      ),
  });
  return (
    <Card withBorder data-testid="contact-leads">
      <Title order={2} size="h4" mb="xs">
        {t('contacts.leads')}
      </Title>
      {leads.isPending ? (
        <Loading />
      ) : leads.error ? (
        <ErrorAlert error={leads.error} onRetry={() => void leads.refetch()} />
      ) : leads.data.data.length === 0 ? (
        <Text c="dimmed" size="sm">
          {t('contacts.noLeads')}
        </Text>
      ) : (
        <DataTable
          columns={[
            { label: t('common.created') },
            { label: t('contacts.bot') },
            { label: t('contacts.conversationState') },
            { label: t('contacts.messages'), align: 'right' as const },
          ]}
          minWidth={320}
        >
          {leads.data.data.map((l) => (
            <Table.Tr key={l.conversation_id}>
              <Table.Td>
                <Link to={`/conversations/${l.conversation_id}`}>
                  {formatDateTime(l.created_at, i18n.language)}
                </Link>
              </Table.Td>
              <Table.Td>{l.bot_name}</Table.Td>
              <Table.Td>
                <Badge
                  color={l.status === 'active' ? 'green' : l.status === 'handed_over' ? 'orange' : 'gray'}
                >
                  {t(`conversations.statuses.${l.status}`)}
                </Badge>
              </Table.Td>
              <Table.Td ta="right">{l.message_count}</Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      )}
    </Card>
  );
}

export function ContactsPage() {
  const { t, i18n } = useTranslation();
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 250);
  const canEdit = useCan('contact:edit');
  const contacts = useQuery({
    queryKey: ['contacts', q],
    queryFn: () => call(api.GET('/api/contacts', { params: { query: { limit: 100, ...(q ? { q } : {}) } } })),
  });
  return (
    <>
      <PageTitle title={t('contacts.title')} />
      <Group justify="space-between" align="flex-end" mb="md">
        <TextInput
          label={t('common.search')}
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          w={280}
        />
        {canEdit && <NewContactButton />}
      </Group>
      {contacts.isPending ? (
        <Loading />
      ) : contacts.error ? (
        <ErrorAlert error={contacts.error} />
      ) : contacts.data.data.length === 0 ? (
        <EmptyState title={t('contacts.emptyTitle')} text={t('contacts.emptyText')} />
      ) : (
        <DataTable
          columns={[
            { label: t('contacts.name') },
            { label: t('contacts.email') },
            { label: t('contacts.phone') },
            { label: t('common.created') },
          ]}
          minWidth={520}
          highlightOnHover
        >
          {contacts.data.data.map((c) => (
            <Table.Tr key={c.id}>
              <Table.Td>
                <Link to={`/contacts/${c.id}`}>{c.name ?? c.email ?? c.sender_id ?? c.id}</Link>
              </Table.Td>
              <Table.Td>{c.email ?? '—'}</Table.Td>
              <Table.Td>{c.phone ?? '—'}</Table.Td>
              <Table.Td>{formatDateTime(c.created_at, i18n.language)}</Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      )}
    </>
  );
}

export function ContactPage() {
  const { t, i18n } = useTranslation();
  const { contactId = '' } = useParams();
  const canEdit = useCan('contact:edit');
  const contact = useQuery({
    queryKey: ['contact', contactId],
    queryFn: () => call(api.GET('/api/contacts/{id}', { params: { path: { id: contactId } } })),
  });
  if (contact.isPending) return <Loading />;
  if (contact.error) return <ErrorAlert error={contact.error} />;
  const c = contact.data;
  const rows: [string, string | null][] = [
    [t('contacts.email'), c.email],
    [t('contacts.phone'), c.phone],
    [t('contacts.sender'), c.sender_id],
    [t('contacts.channel'), c.channel ? t(`channels.${c.channel}`, { defaultValue: c.channel }) : null],
    [t('common.created'), formatDateTime(c.created_at, i18n.language)],
  ];
  return (
    <>
      <Breadcrumbs mb="xs">
        <Anchor component={Link} to="/contacts" size="sm">
          {t('contacts.title')}
        </Anchor>
        <span>{c.name ?? c.id}</span>
      </Breadcrumbs>
      <PageTitle title={c.name ?? c.email ?? t('contacts.unnamed')} />
      <Stack>
        {canEdit && <ContactActions contact={c} />}
        <Card withBorder>
          <Stack gap={4}>
            {rows.map(([label, value]) => (
              <Group key={label} gap="xs" wrap="nowrap" align="flex-start">
                <Text size="sm" fw={600} w={140} style={{ flexShrink: 0 }}>
                  {label}
                </Text>
                <Text size="sm" style={{ wordBreak: 'break-word', minWidth: 0 }}>
                  {value ?? '—'}
                </Text>
              </Group>
            ))}
          </Stack>
        </Card>
        <ContactBookings contactId={c.id} />
        <ContactConversations contactId={c.id} />
        <ContactLeads contactId={c.id} />
      </Stack>
    </>
  );
}
