/**
 * Keeps an event's counters, waitlist and sale status true to its bookings. Runs inside the
 * transaction that changed the bookings, after the event row was locked.
 */
import type { Queryable } from '../../db/database.js';
import { nextOnWaitlist, promoteBooking, renumberWaitlist, type BookingRow } from './booking-repository.js';
import { capacityStateOf, paymentTermsFor, promotionsFor } from './booking-status.js';
import { automaticEventStatus, type EventStatus } from './event-status.js';
import { recomputeEventCounts, setEventStatus, type EventRow } from './repository.js';
import { signalBooking, signalEventStatus } from './signals.js';

export interface SettledEvent {
  event: EventRow;
  promoted: BookingRow[];
}

async function switchAutomatically(tx: Queryable, event: EventRow, placesFreed: boolean): Promise<EventRow> {
  const next = automaticEventStatus(event.status, {
    freePlaces: event.capacity_total - event.capacity_booked,
    placesFreed,
  });
  if (!next) return event;
  const from: EventStatus = event.status;
  const changed = await setEventStatus(tx, event.tenant_id, event.id, next);
  await signalEventStatus(tx, changed, from, true);
  return changed;
}

/**
 * Recounts the bookings and renumbers the waitlist 1..n. When places have become free
 * (`placesFreed`: a cancellation, a larger capacity) a waitlist event resumes selling; while
 * selling, waitlist bookings move up into free places by position; a selling event whose
 * capacity is exhausted switches to waitlist. Every move-up and switch is signalled.
 */
export async function settleCapacity(
  tx: Queryable,
  tenantId: string,
  eventId: string,
  options: { placesFreed: boolean } = { placesFreed: false },
): Promise<SettledEvent> {
  await renumberWaitlist(tx, tenantId, eventId);
  let event = await recomputeEventCounts(tx, tenantId, eventId);
  event = await switchAutomatically(tx, event, options.placesFreed);

  const promoted: BookingRow[] = [];
  const count = promotionsFor(capacityStateOf(event));
  if (count > 0) {
    const terms = paymentTermsFor(event, 'confirmed');
    for (const next of await nextOnWaitlist(tx, tenantId, eventId, count)) {
      promoted.push(await promoteBooking(tx, tenantId, next.id, terms));
    }
    await renumberWaitlist(tx, tenantId, eventId);
    event = await recomputeEventCounts(tx, tenantId, eventId);
  }
  for (const booking of promoted) await signalBooking(tx, 'booking.promoted', event, booking);
  event = await switchAutomatically(tx, event, false);
  return { event, promoted };
}
