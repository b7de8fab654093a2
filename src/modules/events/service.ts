import type { FastifyBaseLogger } from 'fastify';
import type { Database, Queryable } from '../../db/database.js';
import { AppError, badRequest, conflict, ErrorCode, notFound } from '../../http/errors.js';
import { DEFAULT_PAGE_SIZE, splitPage } from '../../shared/pagination.js';
import { findBot } from '../bots/index.js';
import { cancelOpenBookings } from './bookings/service.js';
import { settleCapacity } from './capacity.js';
import { eventCursor, parseEventCursor } from './cursor.js';
import { eventTermsProblem, type EventTerms } from './event-rules.js';
import {
  canDeleteEvent,
  decideEventTransition,
  deletionRefusedMessage,
  FINAL_EVENT_STATUSES,
  requiresProviderLink,
  type EventStatus,
} from './event-status.js';
import type { PaymentLink, PaymentProvider } from './payments.js';
import {
  deleteEventRow,
  eventStatistics,
  findEvent,
  insertEvent,
  listEvents,
  lockEvent,
  setEventStatus,
  updateEventFields,
  type EventFields,
  type EventRow,
} from './repository.js';
import { serializeEvent, serializeStatistics } from './serialize.js';
import { signalEventStatus } from './signals.js';

/** For the contacts' merge and erasure, which move and cancel bookings of a person. */
export { setBookingStatus } from './bookings/repository.js';

export interface EventDeps {
  db: Database;
  payments: PaymentProvider | null;
  log: Pick<FastifyBaseLogger, 'warn'>;
}

/** An event body as the API receives it (dates and times as text). */
export type EventInput = Omit<EventFields, 'booking_deadline'> & { booking_deadline?: string | null };

function toFields(input: EventInput): EventFields {
  const { booking_deadline, ...rest } = input;
  const fields: EventFields = { ...rest };
  if (booking_deadline !== undefined)
    fields.booking_deadline = booking_deadline === null ? null : new Date(booking_deadline);
  if (typeof fields.currency === 'string') fields.currency = fields.currency.toUpperCase();
  return fields;
}

/** Times as PostgreSQL returns them ('HH:MM:SS'), so that merged values compare alike. */
function normaliseTime(value: string | null | undefined): string | null | undefined {
  return typeof value === 'string' && value.length === 5 ? `${value}:00` : value;
}

function checkTerms(merged: EventTerms): void {
  const problem = eventTermsProblem({
    event_time_start: normaliseTime(merged.event_time_start) ?? null,
    event_time_end: normaliseTime(merged.event_time_end) ?? null,
    price: merged.price,
    currency: merged.currency,
    payment_model: merged.payment_model,
    deposit_amount: merged.deposit_amount,
    external_payment_url: merged.external_payment_url,
  });
  if (problem) {
    const { message, ...details } = problem;
    throw badRequest(message, details);
  }
}

async function checkBot(db: Queryable, tenantId: string, botId: string | null | undefined) {
  if (botId && !(await findBot(db, tenantId, botId))) {
    throw badRequest("Field 'bot_id' does not name a bot of this tenant", {
      code: 'reference_unknown',
      field: 'bot_id',
    });
  }
}

const DEFAULTS = {
  bot_id: null,
  description: null,
  location: null,
  image_url: null,
  event_time_start: null,
  event_time_end: null,
  booking_deadline: null,
  capacity_total: 0,
  waitlist_max: null,
  price: 0,
  currency: 'EUR',
  payment_model: 'free',
  deposit_amount: null,
  external_payment_url: null,
  metadata: {},
} as const;

export async function createEvent(
  deps: EventDeps,
  tenantId: string,
  createdBy: string | null,
  input: EventInput & { title: string; event_date: string; capacity_total: number },
) {
  const fields = toFields(input);
  checkTerms({ ...DEFAULTS, ...fields });
  await checkBot(deps.db, tenantId, fields.bot_id);
  const event = await insertEvent(
    deps.db,
    tenantId,
    fields as EventFields & { title: string; event_date: string },
    createdBy,
  );
  return serializeEvent(event);
}

async function loadEvent(deps: EventDeps, tenantId: string, eventId: string): Promise<EventRow> {
  const event = await findEvent(deps.db, tenantId, eventId);
  if (!event) throw notFound('Event');
  return event;
}

export async function getEventDetail(deps: EventDeps, tenantId: string, eventId: string) {
  const event = await loadEvent(deps, tenantId, eventId);
  const stats = await eventStatistics(deps.db, tenantId, eventId);
  return { ...serializeEvent(event), statistics: serializeStatistics(event, stats) };
}

/** Fields that set what bookings pay; the payment link is made from them when sale starts. */
const PAYMENT_TERMS = ['payment_model', 'price', 'currency', 'deposit_amount'] as const;

/**
 * Changes an event's fields (left out: kept; null: cleared). Final events are not edited;
 * payment terms are fixed once the event left draft. Raising the capacity moves waitlist
 * bookings up; it cannot fall below the booked places, nor waitlist_max below the waitlist.
 */
export async function updateEvent(deps: EventDeps, tenantId: string, eventId: string, input: EventInput) {
  const fields = toFields(input);
  await checkBot(deps.db, tenantId, fields.bot_id);
  const event = await deps.db.transaction(async (tx) => {
    const current = await lockEvent(tx, tenantId, eventId);
    if (!current) throw notFound('Event');
    if (FINAL_EVENT_STATUSES.includes(current.status)) {
      throw conflict(`Event in status '${current.status}' cannot be changed`, {
        code: 'event_locked',
        current_status: current.status,
      });
    }
    if (current.status !== 'draft') {
      const changed = PAYMENT_TERMS.filter((f) => fields[f] !== undefined && fields[f] !== current[f]);
      if (changed.length > 0) {
        throw conflict(
          `Payment terms (${changed.join(', ')}) can be changed only while the event is in 'draft' (status '${current.status}')`,
          {
            code: 'payment_terms_locked',
            field: changed[0],
            current_status: current.status,
            fields: changed,
          },
        );
      }
    }
    checkTerms({ ...current, ...fields });
    if (fields.capacity_total !== undefined && fields.capacity_total < current.capacity_booked) {
      throw conflict(
        `Field 'capacity_total' cannot be lower than the ${current.capacity_booked} places already booked`,
        { code: 'capacity_below_booked', field: 'capacity_total', limit: current.capacity_booked },
      );
    }
    if (fields.waitlist_max != null && fields.waitlist_max < current.capacity_waitlist) {
      throw conflict(
        `Field 'waitlist_max' cannot be lower than the ${current.capacity_waitlist} bookings on the waitlist`,
        { code: 'waitlist_below_queued', field: 'waitlist_max', limit: current.capacity_waitlist },
      );
    }
    await updateEventFields(tx, tenantId, eventId, fields);
    const placesFreed = fields.capacity_total !== undefined && fields.capacity_total > current.capacity_total;
    return (await settleCapacity(tx, tenantId, eventId, { placesFreed })).event;
  });
  return serializeEvent(event);
}

/** Deletes an event in draft or cancelled, with its bookings. */
export async function deleteEvent(deps: EventDeps, tenantId: string, eventId: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const event = await lockEvent(tx, tenantId, eventId);
    if (!event) throw notFound('Event');
    if (!canDeleteEvent(event.status)) {
      throw conflict(deletionRefusedMessage(event.status), {
        code: 'event_deletion_refused',
        current_status: event.status,
      });
    }
    await deleteEventRow(tx, tenantId, eventId);
  });
}

function transitionRefused(event: EventRow, to: EventStatus): AppError | null {
  const decision = decideEventTransition(event.status, to);
  return decision.allowed
    ? null
    : conflict(decision.reason, {
        code: 'status_transition',
        current_status: event.status,
        requested_status: to,
      });
}

async function createLink(deps: EventDeps, event: EventRow): Promise<PaymentLink> {
  if (!deps.payments) {
    throw conflict(
      `Event with payment_model '${event.payment_model}' cannot start selling: no payment provider is configured (STRIPE_SECRET_KEY)`,
      { code: 'payment_unavailable', current_status: event.status, requested_status: 'selling' },
    );
  }
  try {
    return await deps.payments.createPaymentLink({
      tenantId: event.tenant_id,
      eventId: event.id,
      title: event.title,
      amount: event.payment_model === 'deposit' ? (event.deposit_amount ?? event.price) : event.price,
      currency: event.currency,
      idempotencyKey: `parley-event-link-${event.id}-${event.updated_at.getTime()}`,
    });
  } catch (error) {
    deps.log.warn({ err: error, event_id: event.id }, 'payment link creation failed');
    throw new AppError(
      503,
      ErrorCode.unavailable,
      'The payment provider could not create the payment link; try again',
      { details: { code: 'payment_unavailable' } },
    );
  }
}

/**
 * Changes the status by the event state machine. Starting sale of a paid event first creates
 * the payment link at the provider (outside the transaction, which must not wait on the
 * network); cancelling cancels the open bookings. An ended event's link is deactivated.
 */
export async function changeEventStatus(deps: EventDeps, tenantId: string, eventId: string, to: EventStatus) {
  const before = await loadEvent(deps, tenantId, eventId);
  const refused = transitionRefused(before, to);
  if (refused) throw refused;
  const needsLink =
    before.status === 'draft' &&
    to === 'selling' &&
    requiresProviderLink(before.payment_model) &&
    !before.provider_payment_link;
  const link = needsLink ? await createLink(deps, before) : undefined;

  const event = await deps.db.transaction(async (tx) => {
    const current = await lockEvent(tx, tenantId, eventId);
    if (!current) throw notFound('Event');
    const refusedNow = transitionRefused(current, to);
    if (refusedNow) throw refusedNow;
    if (link && current.updated_at.getTime() !== before.updated_at.getTime()) {
      throw conflict('The event was changed while its payment link was created; try again', {
        code: 'edit_conflict',
      });
    }
    const changed = await setEventStatus(tx, tenantId, eventId, to, link);
    await signalEventStatus(tx, changed, current.status, false);
    if (to === 'cancelled') await cancelOpenBookings(tx, changed);
    return (await settleCapacity(tx, tenantId, eventId)).event;
  });

  if (FINAL_EVENT_STATUSES.includes(event.status) && event.provider_payment_link_id && deps.payments) {
    await deps.payments.deactivatePaymentLink(event.provider_payment_link_id).catch((error: unknown) => {
      deps.log.warn({ err: error, event_id: event.id }, 'payment link deactivation failed');
    });
  }
  return serializeEvent(event);
}

export async function listEventsPage(
  deps: EventDeps,
  tenantId: string,
  query: {
    status?: EventStatus;
    from_date?: string;
    to_date?: string;
    bot_id?: string;
    sort?: 'event_date' | '-event_date';
    limit?: number;
    cursor?: string;
  },
) {
  if (query.from_date && query.to_date && query.to_date < query.from_date) {
    throw badRequest("Field 'to_date' must not be before 'from_date'", {
      code: 'date_range_order',
      field: 'to_date',
    });
  }
  const descending = query.sort === '-event_date';
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await listEvents(deps.db, tenantId, {
    status: query.status,
    fromDate: query.from_date,
    toDate: query.to_date,
    botId: query.bot_id,
    descending,
    limit,
    after: parseEventCursor(descending, query.cursor),
  });
  const page = splitPage(rows, limit, (last) => eventCursor(descending, { at: last.cursor_at, id: last.id }));
  return { data: page.data.map(serializeEvent), next_cursor: page.next_cursor };
}
