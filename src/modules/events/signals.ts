/**
 * What a change of an event or booking tells the outside: an outbound webhook event (through
 * the outbox) and a dashboard notification, both written in the caller's transaction so they
 * exist exactly when the change is committed.
 */
import type { Queryable } from '../../db/database.js';
import { insertNotification } from '../notifications/index.js';
import { enqueueEvent } from '../webhooks/index.js';
import type { BookingRow } from './bookings/repository.js';
import type { EventStatus } from './event-status.js';
import type { EventRow } from './repository.js';
import { serializeBooking } from './serialize.js';

function eventSummary(event: EventRow) {
  return { id: event.id, title: event.title, event_date: event.event_date, status: event.status };
}

export async function signalEventStatus(
  tx: Queryable,
  event: EventRow,
  from: EventStatus,
  automatic: boolean,
): Promise<void> {
  const data = { event: eventSummary(event), from, to: event.status, automatic };
  await enqueueEvent(tx, event.tenant_id, 'event.status_changed', data);
  await insertNotification(tx, event.tenant_id, {
    type: 'event.status_changed',
    title: `${event.title}: ${from} → ${event.status}`,
    body: automatic
      ? `Status changed automatically (${event.capacity_booked}/${event.capacity_total} places booked).`
      : 'Status changed.',
    eventId: event.id,
    data,
  });
}

const BOOKING_TITLES = {
  'booking.created': (b: BookingRow) =>
    b.status === 'waitlist' ? `New waitlist entry (position ${b.waitlist_position})` : 'New booking',
  'booking.cancelled': () => 'Booking cancelled',
  'booking.promoted': () => 'Booking moved up from the waitlist',
} as const;

export async function signalBooking(
  tx: Queryable,
  type: keyof typeof BOOKING_TITLES,
  event: EventRow,
  booking: BookingRow,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const data = { event: eventSummary(event), booking: serializeBooking(event, booking), ...extra };
  await enqueueEvent(tx, event.tenant_id, type, data);
  await insertNotification(tx, event.tenant_id, {
    type,
    title: `${event.title}: ${BOOKING_TITLES[type](booking)}`,
    eventId: event.id,
    bookingId: booking.id,
    data: { booking_id: booking.id, status: booking.status, ...extra },
  });
}

/** attended / no-show: a notification only (no webhook event type exists for it). */
export async function signalBookingStatus(
  tx: Queryable,
  event: EventRow,
  booking: BookingRow,
  from: string,
): Promise<void> {
  await insertNotification(tx, event.tenant_id, {
    type: 'booking.status_changed',
    title: `${event.title}: booking ${from} → ${booking.status}`,
    eventId: event.id,
    bookingId: booking.id,
    data: { booking_id: booking.id, from, to: booking.status },
  });
}

export async function signalPayment(
  tx: Queryable,
  kind: 'paid' | 'refunded',
  event: EventRow,
  booking: BookingRow,
): Promise<void> {
  const data = {
    event: eventSummary(event),
    booking_id: booking.id,
    contact_id: booking.contact_id,
    amount: booking.payment_amount,
    currency: event.currency,
    payment_status: booking.payment_status,
    provider_payment_intent_id: booking.provider_payment_intent_id,
  };
  if (kind === 'paid') await enqueueEvent(tx, event.tenant_id, 'payment.succeeded', data);
  await insertNotification(tx, event.tenant_id, {
    type: kind === 'paid' ? 'payment.succeeded' : 'payment.refunded',
    title: `${event.title}: ${kind === 'paid' ? 'payment received' : 'payment refunded'}`,
    body: `${booking.payment_amount ?? ''} ${event.currency}`.trim(),
    eventId: event.id,
    bookingId: booking.id,
    data,
  });
}
