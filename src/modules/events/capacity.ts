/**
 * Keeps an event's counters, waitlist and sale status true to its bookings. Runs inside the
 * transaction that changed the bookings, after the event row was locked.
 */
import type { Queryable } from '../../db/database.js';
import { nextOnWaitlist, promoteBooking, renumberWaitlist, type BookingRow } from './bookings/repository.js';
import { capacityStateOf, paymentTermsFor, promotionsFor } from './bookings/status.js';
import { automaticEventStatus, type EventStatus } from './event-status.js';
import { recomputeEventCounts, setEventStatus, type EventRow } from './repository.js';
import { signalBooking, signalEventStatus } from './signals.js';

export interface SettledEvent {
  event: EventRow;
  promoted: BookingRow[];
}

/** The sale status the counters call for (selling ⇄ waitlist), or the present one. */
function automaticStatus(event: EventRow, placesFreed: boolean): EventStatus {
  const freePlaces = event.capacity_total - event.capacity_booked;
  return automaticEventStatus(event.status, { freePlaces, placesFreed }) ?? event.status;
}

/**
 * Recounts the bookings and renumbers the waitlist 1..n. When places have become free
 * (`placesFreed`: a cancellation, a larger capacity) a waitlist event resumes selling; while
 * selling, waitlist bookings move up into free places by position; a selling event whose
 * capacity is exhausted switches to waitlist. Every move-up is signalled, and the status only
 * by its net change: a place freed and at once taken by the waitlist leaves a `waitlist`
 * event where it was, without any status signal.
 */
export async function settleCapacity(
  tx: Queryable,
  tenantId: string,
  eventId: string,
  options: { placesFreed: boolean } = { placesFreed: false },
): Promise<SettledEvent> {
  await renumberWaitlist(tx, tenantId, eventId);
  let event = await recomputeEventCounts(tx, tenantId, eventId);
  const from: EventStatus = event.status;
  // The status the promotions work under; written only once the counters are final.
  const interim = automaticStatus(event, options.placesFreed);

  const promoted: BookingRow[] = [];
  const count = promotionsFor(capacityStateOf({ ...event, status: interim }));
  if (count > 0) {
    const terms = paymentTermsFor(event, 'confirmed');
    for (const next of await nextOnWaitlist(tx, tenantId, eventId, count)) {
      promoted.push(await promoteBooking(tx, tenantId, next.id, terms));
    }
    await renumberWaitlist(tx, tenantId, eventId);
    event = await recomputeEventCounts(tx, tenantId, eventId);
  }
  const to = automaticStatus({ ...event, status: interim }, false);
  if (to !== from) event = await setEventStatus(tx, tenantId, eventId, to);
  for (const booking of promoted) await signalBooking(tx, 'booking.promoted', event, booking);
  if (to !== from) await signalEventStatus(tx, event, from, true);
  return { event, promoted };
}
