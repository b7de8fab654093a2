import type { BookingRow, BookingWithContact } from './bookings/repository.js';
import type { EventRow, EventStatistics } from './repository.js';
import { bookingPaymentUrl } from './payments.js';

const iso = (value: Date | null) => (value ? value.toISOString() : null);

export function serializeEvent(event: EventRow) {
  return {
    id: event.id,
    bot_id: event.bot_id,
    created_by: event.created_by,
    title: event.title,
    description: event.description,
    location: event.location,
    image_url: event.image_url,
    event_date: event.event_date,
    event_time_start: event.event_time_start,
    event_time_end: event.event_time_end,
    booking_deadline: iso(event.booking_deadline),
    capacity_total: event.capacity_total,
    capacity_booked: event.capacity_booked,
    capacity_waitlist: event.capacity_waitlist,
    waitlist_max: event.waitlist_max,
    price: event.price,
    currency: event.currency,
    payment_model: event.payment_model,
    deposit_amount: event.deposit_amount,
    provider_payment_link: event.provider_payment_link,
    external_payment_url: event.external_payment_url,
    status: event.status,
    metadata: event.metadata,
    created_at: event.created_at.toISOString(),
    updated_at: event.updated_at.toISOString(),
  };
}

/** Live figures of an event for its detail view. */
export function serializeStatistics(event: EventRow, stats: EventStatistics) {
  const free = Math.max(0, event.capacity_total - event.capacity_booked);
  return {
    ...stats,
    free_places: free,
    utilization:
      event.capacity_total === 0
        ? null
        : Math.round((event.capacity_booked / event.capacity_total) * 10000) / 10000,
    waitlist_room:
      event.waitlist_max === null ? null : Math.max(0, event.waitlist_max - event.capacity_waitlist),
  };
}

/**
 * Where the booking's payment is made: the provider link tied to the booking while its payment
 * is pending, the external URL for externally paid events (once the booking holds a place).
 */
export function paymentUrlOf(event: EventRow, booking: BookingRow): string | null {
  if (booking.payment_status === 'pending' && event.provider_payment_link) {
    return bookingPaymentUrl(event.provider_payment_link, booking.id);
  }
  if (event.payment_model === 'external_link' && booking.status === 'confirmed') {
    return event.external_payment_url;
  }
  return null;
}

export function serializeBooking(event: EventRow, booking: BookingRow) {
  return {
    id: booking.id,
    event_id: booking.event_id,
    contact_id: booking.contact_id,
    status: booking.status,
    waitlist_position: booking.waitlist_position,
    payment_status: booking.payment_status,
    payment_amount: booking.payment_amount,
    payment_url: paymentUrlOf(event, booking),
    provider_payment_intent_id: booking.provider_payment_intent_id,
    booking_channel: booking.booking_channel,
    booked_at: iso(booking.booked_at),
    cancelled_at: iso(booking.cancelled_at),
    metadata: booking.metadata,
    created_at: booking.created_at.toISOString(),
    updated_at: booking.updated_at.toISOString(),
  };
}

export function serializeBookingWithContact(event: EventRow, booking: BookingWithContact) {
  return {
    ...serializeBooking(event, booking),
    contact: {
      id: booking.contact_id,
      name: booking.contact_name,
      email: booking.contact_email,
      phone: booking.contact_phone,
    },
  };
}

export type SerializedBooking = ReturnType<typeof serializeBooking>;
