import type { Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';
import { isUuid } from '../../shared/ids.js';
import type { OfferedEvent } from './bookings/tags.js';
import type { EventStatus, PaymentModel } from './event-status.js';

export interface EventRow {
  id: string;
  tenant_id: string;
  bot_id: string | null;
  created_by: string | null;
  title: string;
  description: string | null;
  location: string | null;
  image_url: string | null;
  /** 'YYYY-MM-DD' */
  event_date: string;
  /** 'HH:MM:SS' */
  event_time_start: string | null;
  event_time_end: string | null;
  booking_deadline: Date | null;
  capacity_total: number;
  capacity_booked: number;
  capacity_waitlist: number;
  waitlist_max: number | null;
  price: number;
  currency: string;
  payment_model: PaymentModel;
  deposit_amount: number | null;
  provider_payment_link: string | null;
  provider_payment_link_id: string | null;
  external_payment_url: string | null;
  status: EventStatus;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

/** Fields written through the API; status, counters and the provider link have their own paths. */
export type EventFields = Partial<
  Pick<
    EventRow,
    | 'bot_id'
    | 'title'
    | 'description'
    | 'location'
    | 'image_url'
    | 'event_date'
    | 'event_time_start'
    | 'event_time_end'
    | 'capacity_total'
    | 'waitlist_max'
    | 'price'
    | 'currency'
    | 'payment_model'
    | 'deposit_amount'
    | 'external_payment_url'
    | 'metadata'
  > & { booking_deadline: Date | null }
>;

export const EVENT_WRITABLE: (keyof EventFields)[] = [
  'bot_id',
  'title',
  'description',
  'location',
  'image_url',
  'event_date',
  'event_time_start',
  'event_time_end',
  'booking_deadline',
  'capacity_total',
  'waitlist_max',
  'price',
  'currency',
  'payment_model',
  'deposit_amount',
  'external_payment_url',
  'metadata',
];

function valueOf(fields: EventFields, column: keyof EventFields): unknown {
  const value = fields[column];
  return column === 'metadata' && value !== null ? JSON.stringify(value) : value;
}

export async function insertEvent(
  db: Queryable,
  tenantId: string,
  fields: EventFields & { title: string; event_date: string },
  createdBy: string | null,
): Promise<EventRow> {
  const columns = EVENT_WRITABLE.filter((c) => fields[c] !== undefined);
  const placeholders = columns.map((_, i) => `$${i + 3}`);
  return (await queryOne<EventRow>(
    db,
    `INSERT INTO events (tenant_id, created_by, ${columns.join(', ')})
     VALUES ($1, $2, ${placeholders.join(', ')}) RETURNING *`,
    [tenantId, createdBy, ...columns.map((c) => valueOf(fields, c))],
  ))!;
}

export async function updateEventFields(
  db: Queryable,
  tenantId: string,
  eventId: string,
  fields: EventFields,
): Promise<EventRow> {
  const columns = EVENT_WRITABLE.filter((c) => fields[c] !== undefined);
  const sets = columns.map((c, i) => `${c} = $${i + 3}`);
  return (await queryOne<EventRow>(
    db,
    `UPDATE events SET ${[...sets, 'updated_at = now()'].join(', ')}
     WHERE tenant_id = $1 AND id = $2 RETURNING *`,
    [tenantId, eventId, ...columns.map((c) => valueOf(fields, c))],
  ))!;
}

export function findEvent(db: Queryable, tenantId: string, eventId: string): Promise<EventRow | undefined> {
  if (!isUuid(eventId)) return Promise.resolve(undefined);
  return queryOne<EventRow>(db, 'SELECT * FROM events WHERE tenant_id = $1 AND id = $2', [tenantId, eventId]);
}

/**
 * Locks the event row for the rest of the transaction. Every write that touches the event's
 * bookings takes this lock first, so capacity decisions are made one at a time per event.
 */
export function lockEvent(db: Queryable, tenantId: string, eventId: string): Promise<EventRow | undefined> {
  if (!isUuid(eventId)) return Promise.resolve(undefined);
  return queryOne<EventRow>(db, 'SELECT * FROM events WHERE tenant_id = $1 AND id = $2 FOR UPDATE', [
    tenantId,
    eventId,
  ]);
}

/** Locks several events in id order (a fixed order cannot deadlock against another locker). */
export async function lockEventsForUpdate(
  db: Queryable,
  tenantId: string,
  eventIds: string[],
): Promise<void> {
  if (eventIds.length === 0) return;
  await db.query(
    'SELECT id FROM events WHERE tenant_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR UPDATE',
    [tenantId, eventIds],
  );
}

export function setEventStatus(
  db: Queryable,
  tenantId: string,
  eventId: string,
  status: EventStatus,
  link?: { url: string; id: string },
): Promise<EventRow> {
  return queryOne<EventRow>(
    db,
    `UPDATE events SET status = $3, updated_at = now(),
       provider_payment_link = coalesce($4, provider_payment_link),
       provider_payment_link_id = coalesce($5, provider_payment_link_id)
     WHERE tenant_id = $1 AND id = $2 RETURNING *`,
    [tenantId, eventId, status, link?.url ?? null, link?.id ?? null],
  ) as Promise<EventRow>;
}

/** Sets capacity_booked and capacity_waitlist to the counts of the bookings. */
export async function recomputeEventCounts(
  db: Queryable,
  tenantId: string,
  eventId: string,
): Promise<EventRow> {
  return (await queryOne<EventRow>(
    db,
    `UPDATE events e SET
       capacity_booked = (SELECT count(*) FROM event_bookings b
                          WHERE b.event_id = e.id AND b.status IN ('confirmed', 'attended', 'no_show')),
       capacity_waitlist = (SELECT count(*) FROM event_bookings b
                            WHERE b.event_id = e.id AND b.status = 'waitlist'),
       updated_at = now()
     WHERE e.tenant_id = $1 AND e.id = $2 RETURNING *`,
    [tenantId, eventId],
  ))!;
}

export async function deleteEventRow(db: Queryable, tenantId: string, eventId: string): Promise<void> {
  await db.query('DELETE FROM events WHERE tenant_id = $1 AND id = $2', [tenantId, eventId]);
}

export interface EventListFilter {
  status?: EventStatus;
  fromDate?: string;
  toDate?: string;
  botId?: string;
  descending: boolean;
  limit: number;
  /** Position after the last row of the previous page: event start (date + time) and id. */
  after?: { at: string; id: string };
}

/** Sort key: the event's start; an event without a start time sorts at the start of its day. */
const START = "(event_date + coalesce(event_time_start, time '00:00'))";

export function listEvents(
  db: Queryable,
  tenantId: string,
  filter: EventListFilter,
): Promise<(EventRow & { cursor_at: string })[]> {
  const params: unknown[] = [tenantId];
  const where = ['tenant_id = $1'];
  const add = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (filter.status) add((p) => `status = ${p}`, filter.status);
  if (filter.fromDate) add((p) => `event_date >= ${p}::date`, filter.fromDate);
  if (filter.toDate) add((p) => `event_date <= ${p}::date`, filter.toDate);
  if (filter.botId) add((p) => `bot_id = ${p}::uuid`, filter.botId);
  const dir = filter.descending ? 'DESC' : 'ASC';
  if (filter.after) {
    params.push(filter.after.at, filter.after.id);
    const op = filter.descending ? '<' : '>';
    where.push(`(${START}, id) ${op} ($${params.length - 1}::timestamp, $${params.length}::uuid)`);
  }
  params.push(filter.limit + 1);
  return db.query(
    `SELECT *, to_char(${START}, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at FROM events
     WHERE ${where.join(' AND ')} ORDER BY ${START} ${dir}, id ${dir} LIMIT $${params.length}`,
    params,
  );
}

export interface EventStatistics {
  confirmed: number;
  waitlist: number;
  cancelled: number;
  attended: number;
  no_show: number;
  amount_paid: number;
  amount_pending: number;
  amount_refunded: number;
}

export async function eventStatistics(
  db: Queryable,
  tenantId: string,
  eventId: string,
): Promise<EventStatistics> {
  return (await queryOne<EventStatistics>(
    db,
    `SELECT
       count(*) FILTER (WHERE status = 'confirmed')::int AS confirmed,
       count(*) FILTER (WHERE status = 'waitlist')::int AS waitlist,
       count(*) FILTER (WHERE status = 'cancelled')::int AS cancelled,
       count(*) FILTER (WHERE status = 'attended')::int AS attended,
       count(*) FILTER (WHERE status = 'no_show')::int AS no_show,
       coalesce(sum(payment_amount) FILTER (WHERE payment_status = 'paid'), 0)::numeric AS amount_paid,
       coalesce(sum(payment_amount) FILTER (WHERE payment_status = 'pending' AND status <> 'cancelled'), 0)::numeric
         AS amount_pending,
       coalesce(sum(payment_amount) FILTER (WHERE payment_status = 'refunded'), 0)::numeric AS amount_refunded
     FROM event_bookings WHERE tenant_id = $1 AND event_id = $2`,
    [tenantId, eventId],
  ))!;
}

/**
 * Events a bot can book now: assigned to the bot or to no bot, in sale, before the booking
 * deadline, with a free place or room on the waitlist. Soonest first. Only the columns the
 * chat's prompt section shows (this runs with every chat request).
 */
export function listBookableEvents(
  db: Queryable,
  tenantId: string,
  botId: string,
  limit: number,
): Promise<OfferedEvent[]> {
  return db.query<OfferedEvent>(
    `SELECT id, title, event_date, event_time_start, location, price, currency, payment_model,
            capacity_total, capacity_booked, status, booking_deadline
     FROM events
     WHERE tenant_id = $1 AND (bot_id = $2 OR bot_id IS NULL)
       AND status IN ('selling', 'waitlist')
       AND (booking_deadline IS NULL OR booking_deadline > now())
       AND (capacity_booked < capacity_total OR waitlist_max IS NULL OR capacity_waitlist < waitlist_max)
     ORDER BY ${START}, id LIMIT $3`,
    [tenantId, botId, limit],
  );
}
