/**
 * Keeps an event's counters, waitlist and sale status true to its bookings. Runs inside the
 * transaction that changed the bookings, after the event row was locked.
 */
import type { Queryable } from '../../db/database.js';
import { nextOnWaitlist, promoteBooking, renumberWaitlist, type BookingRow } from './booking-repository.js';
import { paymentTermsFor, promotionsFor } from './booking-status.js';
import { automaticEventStatus, BOOKABLE_EVENT_STATUSES } from './event-status.js';
import { recomputeEventCounts, setEventStatus, type EventRow } from './repository.js';
import { signalBooking, signalEventStatus } from './signals.js';

export interface SettledEvent {
  event: EventRow;
  promoted: BookingRow[];
}

/**
 * Recounts the bookings; while the event is in sale, moves waitlist bookings up into free
 * places (by position, positions renumbered 1..n) and switches selling ↔ waitlist to match
 * the capacity. Each move-up and status switch is signalled.
 */
export async function settleCapacity(
  tx: Queryable,
  tenantId: string,
  eventId: string,
): Promise<SettledEvent> {
  await renumberWaitlist(tx, tenantId, eventId);
  let event = await recomputeEventCounts(tx, tenantId, eventId);
  const promoted: BookingRow[] = [];
  if (!BOOKABLE_EVENT_STATUSES.includes(event.status)) return { event, promoted };

  const count = promotionsFor({
    capacityTotal: event.capacity_total,
    capacityBooked: event.capacity_booked,
    capacityWaitlist: event.capacity_waitlist,
    waitlistMax: event.waitlist_max,
  });
  if (count > 0) {
    const terms = paymentTermsFor(event, 'confirmed');
    for (const next of await nextOnWaitlist(tx, tenantId, eventId, count)) {
      promoted.push(await promoteBooking(tx, tenantId, next.id, terms));
    }
    await renumberWaitlist(tx, tenantId, eventId);
    event = await recomputeEventCounts(tx, tenantId, eventId);
  }

  const next = automaticEventStatus(event.status, event.capacity_total - event.capacity_booked);
  if (next) {
    const from = event.status;
    event = await setEventStatus(tx, tenantId, eventId, next);
    await signalEventStatus(tx, event, from, true);
  }
  for (const booking of promoted) await signalBooking(tx, 'booking.promoted', event, booking);
  return { event, promoted };
}
