import { Badge, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatDate, formatMoney } from '../../format';
import { EVENT_STATUS_COLOUR } from '../events/event-status';
import { ContactList } from './ContactList';
import { useContactBookings } from './queries';

const BOOKING_COLOUR: Record<string, string> = {
  confirmed: 'green',
  waitlist: 'orange',
  attended: 'blue',
  no_show: 'red',
  cancelled: 'gray',
};

/** The person's bookings of events. */
export function ContactBookings({ contactId }: { contactId: string }) {
  const { t, i18n } = useTranslation();
  return (
    <ContactList
      title={t('contacts.bookings')}
      testId="contact-bookings"
      query={useContactBookings(contactId)}
      none={t('contacts.noBookings')}
      columns={[t('events.date'), t('events.eventTitle'), t('events.status'), t('events.paymentState')]}
      minWidth={320}
      row={(b) => (
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
            {b.payment_amount !== null && ` · ${formatMoney(b.payment_amount, b.currency, i18n.language)}`}
          </Table.Td>
        </Table.Tr>
      )}
    />
  );
}
