import {
  Alert,
  Anchor,
  Badge,
  Breadcrumbs,
  Button,
  Card,
  Group,
  List,
  Progress,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { decideBookingTransition, type BookingStatus } from '@server/modules/events/bookings/status.js';
import { allowedEventTransitions } from '@server/modules/events/event-status.js';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import type { BookingWithContact, EventDetail, EventRow } from '../../api/types';
import { useCan } from '../../app/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { confirmAction } from '../../components/confirm';
import { PageTitle } from '../../components/PageTitle';
import { ErrorAlert, Loading } from '../../components/states';
import { formatDate, formatMoney } from '../../format';
import { capacityShares } from './capacity';
import { EventEditor } from './EventEditor';
import { EventNotifications } from './EventNotifications';
import { EVENT_STATUS_COLOUR } from './EventsPage';
import { DataTable } from '../../components/DataTable';
import {
  useAddBooking,
  useBookings,
  useCancelBooking,
  useChangeEventStatus,
  useEvent,
  useSetBookingStatus,
} from './queries';

const MANUAL_BOOKING_TARGETS: BookingStatus[] = ['attended', 'no_show'];

function Capacity({ event, pendingPlaces }: { event: EventDetail; pendingPlaces: number }) {
  const { t } = useTranslation();
  const shares = capacityShares(event.capacity_total, event.capacity_booked, pendingPlaces);
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        {t('events.capacityTitle')}
      </Title>
      <Progress.Root size={22}>
        <Progress.Section
          value={shares.confirmed}
          color="indigo.9"
          aria-label={t('events.sections.confirmed')}
        >
          <Progress.Label>{event.capacity_booked}</Progress.Label>
        </Progress.Section>
        <Progress.Section value={shares.pending} color="yellow.7" aria-label={t('events.sections.pending')} />
        <Progress.Section value={shares.free} color="gray.3" aria-label={t('events.sections.free')} />
      </Progress.Root>
      <Group gap="lg" mt="xs">
        <Text size="sm" data-testid="capacity-confirmed">
          {t('events.confirmedCount', { count: event.capacity_booked, total: event.capacity_total })}
        </Text>
        <Text size="sm" data-testid="capacity-free">
          {t('events.freeCount', { count: shares.freePlaces })}
        </Text>
        <Text size="sm" data-testid="capacity-waitlist">
          {t('events.waitlistCount', { count: event.capacity_waitlist })}
        </Text>
      </Group>
    </Card>
  );
}

/** Books a person by name, e-mail or phone (an address or number finds the existing contact). */
function AddBooking({ eventId }: { eventId: string }) {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [phone, setPhone] = useState('');
  const book = useAddBooking(eventId);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        const person = { name: name.trim(), email: email.trim(), phone: phone.trim() };
        if (!person.name && !person.email && !person.phone) return;
        book.mutate(person, {
          onSuccess: () => {
            setName('');
            setEmail('');
            setPhone('');
          },
        });
      }}
    >
      <Group align="flex-end">
        <TextInput
          label={t('events.bookName')}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
        />
        <TextInput
          label={t('contacts.email')}
          type="email"
          value={email}
          onChange={(e) => setEmail(e.currentTarget.value)}
        />
        <TextInput
          label={t('contacts.phone')}
          value={phone}
          onChange={(e) => setPhone(e.currentTarget.value)}
        />
        <Button type="submit" loading={book.isPending}>
          {t('events.book')}
        </Button>
      </Group>
      {book.error && <ErrorAlert error={book.error} />}
    </form>
  );
}

function BookingRow({
  booking,
  event,
  canEdit,
}: {
  booking: BookingWithContact;
  event: EventRow;
  canEdit: boolean;
}) {
  const { t, i18n } = useTranslation();
  const cancel = useCancelBooking(event.id, booking.id);
  const setStatus = useSetBookingStatus(event.id, booking.id);
  const name = booking.contact.name ?? booking.contact.email ?? booking.contact_id;
  const targets = MANUAL_BOOKING_TARGETS.filter(
    (to) => decideBookingTransition(booking.status, to, 'manual').allowed,
  );
  const cancellable = decideBookingTransition(booking.status, 'cancelled', 'manual').allowed;
  return (
    <Table.Tr data-testid="booking-row">
      <Table.Td>
        <Link to={`/contacts/${booking.contact_id}`}>{name}</Link>
      </Table.Td>
      <Table.Td>
        <Badge
          variant="light"
          color={booking.status === 'confirmed' ? 'green' : booking.status === 'waitlist' ? 'orange' : 'gray'}
        >
          {t(`events.bookingStatuses.${booking.status}`)}
          {booking.status === 'waitlist' &&
            booking.waitlist_position !== null &&
            ` #${booking.waitlist_position}`}
        </Badge>
      </Table.Td>
      <Table.Td>
        {t(`events.paymentStatuses.${booking.payment_status}`)}
        {booking.payment_amount !== null &&
          ` · ${formatMoney(booking.payment_amount, event.currency, i18n.language)}`}
        {booking.payment_url && (
          <>
            {' · '}
            <Anchor href={booking.payment_url} target="_blank" rel="noreferrer">
              {t('events.paymentLink')}
            </Anchor>
          </>
        )}
      </Table.Td>
      <Table.Td>
        {canEdit && (
          <Group gap={4} wrap="nowrap">
            {targets.map((to) => (
              <Button key={to} size="compact-xs" variant="light" onClick={() => setStatus.mutate(to)}>
                {t(`events.bookingStatuses.${to}`)}
              </Button>
            ))}
            {cancellable && (
              <ConfirmButton
                aria-label={t('events.cancelBookingOf', { name })}
                title={t('events.cancelBooking')}
                text={t('events.cancelBookingConfirm', { name })}
                onConfirm={() => cancel.mutate()}
              >
                {t('events.cancelBooking')}
              </ConfirmButton>
            )}
          </Group>
        )}
        {(cancel.error || setStatus.error) && <ErrorAlert error={cancel.error ?? setStatus.error} />}
      </Table.Td>
    </Table.Tr>
  );
}

export function EventPage() {
  const { t, i18n } = useTranslation();
  const { eventId = '' } = useParams();
  const canEdit = useCan('event:edit');
  const [editing, setEditing] = useState(false);
  const event = useEvent(eventId);
  const bookings = useBookings(eventId);
  const changeStatus = useChangeEventStatus(eventId);

  if (event.isPending) return <Loading />;
  if (event.error) return <ErrorAlert error={event.error} />;
  const e = event.data;
  const all = bookings.data ?? [];
  const waitlist = all
    .filter((b) => b.status === 'waitlist')
    .sort((a, b) => (a.waitlist_position ?? 0) - (b.waitlist_position ?? 0));
  const bookable = e.status === 'selling' || e.status === 'waitlist';

  return (
    <>
      <Breadcrumbs mb="xs">
        <Anchor component={Link} to="/events" size="sm">
          {t('events.title')}
        </Anchor>
        <span>{e.title}</span>
      </Breadcrumbs>
      <PageTitle title={e.title}>
        <Group gap="sm">
          <Badge size="lg" color={EVENT_STATUS_COLOUR[e.status]} variant="light" data-testid="event-status">
            {t(`events.statuses.${e.status}`)}
          </Badge>
          {canEdit && (
            <Button variant="default" onClick={() => setEditing(true)}>
              {t('events.edit')}
            </Button>
          )}
        </Group>
      </PageTitle>
      {editing && <EventEditor event={e} onClose={() => setEditing(false)} />}
      <Stack>
        <Card withBorder>
          <Group gap="xl">
            <Text size="sm">
              {t('events.date')}: {formatDate(e.event_date, i18n.language)}
              {e.event_time_start && ` ${e.event_time_start.slice(0, 5)}`}
              {e.event_time_end && `–${e.event_time_end.slice(0, 5)}`}
            </Text>
            {e.location && (
              <Text size="sm">
                {t('events.location')}: {e.location}
              </Text>
            )}
            <Text size="sm">
              {t('events.price')}:{' '}
              {e.payment_model === 'free'
                ? t('events.payment.free')
                : `${formatMoney(e.price, e.currency, i18n.language)} · ${t(`events.payment.${e.payment_model}`)}`}
              {e.payment_model === 'deposit' &&
                e.deposit_amount !== null &&
                ` (${t('events.depositAmount')}: ${formatMoney(e.deposit_amount, e.currency, i18n.language)})`}
            </Text>
          </Group>
          {e.provider_payment_link && (
            <Anchor href={e.provider_payment_link} size="sm" target="_blank" rel="noreferrer">
              {t('events.paymentLink')}
            </Anchor>
          )}
          {canEdit && allowedEventTransitions(e.status).length > 0 && (
            <Group mt="sm" gap="xs">
              <Text size="sm">{t('events.changeStatus')}:</Text>
              {allowedEventTransitions(e.status).map((to) => (
                <Button
                  key={to}
                  size="xs"
                  variant={to === 'cancelled' ? 'subtle' : 'light'}
                  color={to === 'cancelled' ? 'red' : undefined}
                  loading={changeStatus.isPending && changeStatus.variables === to}
                  onClick={() =>
                    to === 'cancelled' || to === 'completed'
                      ? confirmAction({
                          title: t(`events.to.${to}`),
                          text: t('events.finalConfirm'),
                          confirm: t(`events.to.${to}`),
                          onConfirm: () => changeStatus.mutate(to),
                        })
                      : changeStatus.mutate(to)
                  }
                >
                  {t(`events.to.${to}`)}
                </Button>
              ))}
            </Group>
          )}
          {changeStatus.error && <ErrorAlert error={changeStatus.error} />}
        </Card>
        <Capacity
          event={e}
          pendingPlaces={all.filter((b) => b.status === 'confirmed' && b.payment_status === 'pending').length}
        />
        {waitlist.length > 0 && (
          <Card withBorder>
            <Title order={2} size="h4" mb="xs">
              {t('events.waitlist')}
            </Title>
            <List type="ordered" data-testid="waitlist">
              {waitlist.map((b) => (
                <List.Item key={b.id}>{b.contact.name ?? b.contact_id}</List.Item>
              ))}
            </List>
          </Card>
        )}
        <Card withBorder>
          <Title order={2} size="h4" mb="xs">
            {t('events.bookings')}
          </Title>
          {canEdit && bookable && <AddBooking eventId={eventId} />}
          {canEdit && !bookable && e.status === 'draft' && (
            <Alert color="blue" mb="sm">
              {t('events.draftHint')}
            </Alert>
          )}
          {bookings.error && <ErrorAlert error={bookings.error} />}
          {all.length === 0 ? (
            <Text c="dimmed" mt="sm">
              {t('events.noBookings')}
            </Text>
          ) : (
            <DataTable
              columns={[
                { label: t('events.contact') },
                { label: t('events.status') },
                { label: t('events.paymentState') },
                { label: t('common.actions') },
              ]}
              minWidth={560}
              mt="sm"
            >
              {all.map((b) => (
                <BookingRow key={b.id} booking={b} event={e} canEdit={canEdit} />
              ))}
            </DataTable>
          )}
        </Card>
        <EventNotifications eventId={eventId} />
      </Stack>
    </>
  );
}
