import { Anchor, Badge, Button, Group, Table } from '@mantine/core';
import { decideBookingTransition, type BookingStatus } from '@server/modules/events/bookings/status.js';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { BookingWithContact, EventRow } from '../../api/types';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorAlert } from '../../components/states';
import { formatMoney } from '../../format';
import { useCancelBooking, useSetBookingStatus } from './queries';

/** The statuses a booking is set to by hand (the others follow from payment and cancelling). */
const MANUAL_BOOKING_TARGETS: BookingStatus[] = ['attended', 'no_show'];

export function BookingRow({
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
