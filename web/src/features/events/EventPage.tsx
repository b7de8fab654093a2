import { Alert, Anchor, Badge, Breadcrumbs, Button, Card, Group, List, Stack, Text } from '@mantine/core';
import { allowedEventTransitions } from '@server/modules/events/event-status.js';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { useCan } from '../../app/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { PageTitle } from '../../components/PageTitle';
import { ErrorAlert, Loading } from '../../components/states';
import { formatDate, formatMoney } from '../../format';
import { EventEditor } from './EventEditor';
import { EventNotifications } from './EventNotifications';
import { EVENT_STATUS_COLOUR } from './event-status';
import { DataTable } from '../../components/DataTable';
import { useBookings, useChangeEventStatus, useEvent } from './queries';
import { Capacity } from './Capacity';
import { AddBooking } from './AddBooking';
import { Section } from '../../components/Section';
import { BookingRow } from './BookingRow';

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
                <ConfirmButton
                  key={to}
                  size="xs"
                  variant={to === 'cancelled' ? 'subtle' : 'light'}
                  danger={to === 'cancelled'}
                  loading={changeStatus.isPending && changeStatus.variables === to}
                  ask={to === 'cancelled' || to === 'completed'}
                  title={t(`events.to.${to}`)}
                  text={t('events.finalConfirm')}
                  onConfirm={() => changeStatus.mutate(to)}
                >
                  {t(`events.to.${to}`)}
                </ConfirmButton>
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
          <Section title={t('events.waitlist')}>
            <List type="ordered" data-testid="waitlist">
              {waitlist.map((b) => (
                <List.Item key={b.id}>{b.contact.name ?? b.contact_id}</List.Item>
              ))}
            </List>
          </Section>
        )}
        <Section title={t('events.bookings')}>
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
                t('events.contact'),
                t('events.status'),
                t('events.paymentState'),
                t('common.actions'),
              ]}
              minWidth={560}
              mt="sm"
            >
              {all.map((b) => (
                <BookingRow key={b.id} booking={b} event={e} canEdit={canEdit} />
              ))}
            </DataTable>
          )}
        </Section>
        <EventNotifications eventId={eventId} />
      </Stack>
    </>
  );
}
