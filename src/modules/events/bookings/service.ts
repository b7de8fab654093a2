import type { Database, Queryable } from '../../../db/database.js';
import { type AppError, badRequest, conflict, notFound } from '../../../http/errors.js';
import {
  decodeTimeCursor,
  DEFAULT_PAGE_SIZE,
  encodeTimeCursor,
  splitPage,
} from '../../../shared/pagination.js';
import { findContact } from '../../contacts/index.js';
import {
  findOpenBooking,
  insertBooking,
  listBookings,
  lockBooking,
  openBookingsOfEvent,
  setBookingStatus,
  type BookingRow,
} from './repository.js';
import {
  capacityStateOf,
  decideBookingTransition,
  paymentTermsFor,
  placeBooking,
  type BookingChannel,
  type BookingStatus,
} from './status.js';
import { settleCapacity } from '../capacity.js';
import { BOOKABLE_EVENT_STATUSES } from '../event-status.js';
import { findEvent, lockEvent, type EventRow } from '../repository.js';
import { serializeBooking, serializeBookingWithContact } from '../serialize.js';
import { signalBooking, signalBookingStatus } from '../signals.js';

export type BookingRefusalCode =
  | 'event_not_found'
  | 'contact_not_found'
  | 'not_bookable'
  | 'deadline_passed'
  | 'already_booked'
  | 'fully_booked';

export type BookingOutcome =
  | { ok: true; event: EventRow; booking: BookingRow; promoted: BookingRow[] }
  | { ok: false; code: BookingRefusalCode; message: string; event?: EventRow; existing?: BookingRow };

export interface BookingInput {
  eventId: string;
  contactId: string;
  channel: BookingChannel;
  metadata?: Record<string, unknown>;
}

/**
 * Books a place (or a waitlist spot) inside the caller's transaction. The event row is locked
 * first, so concurrent bookings of one event are decided one after the other; a refusal
 * writes nothing and is returned, not thrown, so that callers can report it their own way.
 */
export async function bookInTransaction(
  tx: Queryable,
  tenantId: string,
  input: BookingInput,
): Promise<BookingOutcome> {
  const event = await lockEvent(tx, tenantId, input.eventId);
  if (!event) return { ok: false, code: 'event_not_found', message: 'Event not found' };
  if (!(await findContact(tx, tenantId, input.contactId))) {
    return {
      ok: false,
      code: 'contact_not_found',
      event,
      message: "Field 'contact_id' does not name a contact of this tenant",
    };
  }
  if (!BOOKABLE_EVENT_STATUSES.includes(event.status)) {
    return {
      ok: false,
      code: 'not_bookable',
      event,
      message: `Bookings are accepted only while the event is 'selling' or 'waitlist' (status '${event.status}')`,
    };
  }
  if (event.booking_deadline && event.booking_deadline.getTime() <= Date.now()) {
    return {
      ok: false,
      code: 'deadline_passed',
      event,
      message: 'The booking deadline of this event has passed',
    };
  }
  const existing = await findOpenBooking(tx, tenantId, event.id, input.contactId);
  if (existing) {
    return {
      ok: false,
      code: 'already_booked',
      event,
      existing,
      message: `The contact already has a booking for this event (status '${existing.status}')`,
    };
  }
  const placement = placeBooking(capacityStateOf(event));
  if (placement.status === 'refused')
    return { ok: false, code: 'fully_booked', event, message: placement.reason };

  const terms = paymentTermsFor(event, placement.status);
  const booking = await insertBooking(tx, tenantId, {
    eventId: event.id,
    contactId: input.contactId,
    status: placement.status,
    waitlistPosition: placement.status === 'waitlist' ? placement.position : null,
    paymentStatus: terms.payment_status,
    paymentAmount: terms.payment_amount,
    channel: input.channel,
    metadata: input.metadata ?? {},
  });
  await signalBooking(tx, 'booking.created', event, booking);
  const settled = await settleCapacity(tx, tenantId, event.id);
  return { ok: true, event: settled.event, booking, promoted: settled.promoted };
}

function refusalError(outcome: Extract<BookingOutcome, { ok: false }>): AppError {
  switch (outcome.code) {
    case 'event_not_found':
      return notFound('Event');
    case 'contact_not_found':
      return badRequest(outcome.message, { code: 'reference_unknown', field: 'contact_id' });
    case 'already_booked':
      return conflict(outcome.message, { code: 'booking_exists', booking_id: outcome.existing?.id });
    default:
      return conflict(outcome.message, { code: 'booking_refused', reason: outcome.code });
  }
}

/** PostgreSQL's unique_violation: the one-open-booking-per-contact index as the last word. */
function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

export async function createBooking(db: Database, tenantId: string, input: BookingInput) {
  let outcome: BookingOutcome;
  try {
    outcome = await db.transaction((tx) => bookInTransaction(tx, tenantId, input));
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw conflict('The contact already has a booking for this event', { code: 'booking_exists' });
    }
    throw error;
  }
  if (!outcome.ok) throw refusalError(outcome);
  return serializeBooking(outcome.event, outcome.booking);
}

async function lockEventAndBooking(tx: Queryable, tenantId: string, eventId: string, bookingId: string) {
  const event = await lockEvent(tx, tenantId, eventId);
  const booking = event ? await lockBooking(tx, tenantId, eventId, bookingId) : undefined;
  if (!event || !booking) throw notFound('Booking');
  return { event, booking };
}

/**
 * Changes a booking's status by the booking state machine. Cancelling frees the place (or the
 * waitlist spot): the first waitlist booking moves up and positions close ranks, in the same
 * transaction.
 */
export async function changeBookingStatus(
  db: Database,
  tenantId: string,
  input: { eventId: string; bookingId: string; status: BookingStatus; reason?: string },
) {
  return db.transaction(async (tx) => {
    const locked = await lockEventAndBooking(tx, tenantId, input.eventId, input.bookingId);
    const { booking } = locked;
    const decision = decideBookingTransition(booking.status, input.status, 'manual');
    if (!decision.allowed) {
      throw conflict(decision.reason, {
        code: 'status_transition',
        current_status: booking.status,
        requested_status: input.status,
      });
    }
    const target = input.status as 'attended' | 'no_show' | 'cancelled';
    const updated = await setBookingStatus(tx, tenantId, booking.id, target);
    if (target === 'cancelled') {
      await signalBooking(tx, 'booking.cancelled', locked.event, updated, {
        previous_status: booking.status,
        reason: input.reason ?? 'cancelled',
      });
    } else {
      await signalBookingStatus(tx, locked.event, updated, booking.status);
    }
    const { event, promoted } = await settleCapacity(tx, tenantId, input.eventId, {
      placesFreed: target === 'cancelled' && booking.status === 'confirmed',
    });
    return {
      booking: serializeBooking(event, updated),
      promoted: promoted.map((p) => serializeBooking(event, p)),
    };
  });
}

/** Cancels every open booking of an event that is being cancelled (inside its transaction). */
export async function cancelOpenBookings(tx: Queryable, event: EventRow): Promise<void> {
  for (const booking of await openBookingsOfEvent(tx, event.tenant_id, event.id)) {
    const cancelled = await setBookingStatus(tx, event.tenant_id, booking.id, 'cancelled');
    await signalBooking(tx, 'booking.cancelled', event, cancelled, {
      previous_status: booking.status,
      reason: 'event_cancelled',
    });
  }
}

const BOOKING_LIST = 'event-bookings';

export async function listBookingsPage(
  db: Database,
  tenantId: string,
  eventId: string,
  query: { limit?: number; cursor?: string; status?: BookingStatus },
) {
  const event = await findEvent(db, tenantId, eventId);
  if (!event) throw notFound('Event');
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await listBookings(db, tenantId, eventId, {
    status: query.status,
    limit,
    after: decodeTimeCursor(BOOKING_LIST, query.cursor),
  });
  const page = splitPage(rows, limit, (last) =>
    encodeTimeCursor(BOOKING_LIST, { at: last.cursor_at, id: last.id }),
  );
  return { data: page.data.map((b) => serializeBookingWithContact(event, b)), next_cursor: page.next_cursor };
}
