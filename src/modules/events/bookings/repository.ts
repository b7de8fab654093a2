import type { Queryable } from '../../../db/database.js';
import { queryOne } from '../../../db/database.js';
import { cursorTimestampSql, type TimeCursor } from '../../../shared/pagination.js';
import { isUuid } from '../../../shared/ids.js';
import type { BookingChannel, BookingStatus, PaymentStatus } from './status.js';

export interface BookingRow {
  id: string;
  tenant_id: string;
  event_id: string;
  contact_id: string;
  status: BookingStatus;
  waitlist_position: number | null;
  payment_status: PaymentStatus;
  payment_amount: number | null;
  provider_payment_intent_id: string | null;
  booking_channel: BookingChannel;
  booked_at: Date | null;
  cancelled_at: Date | null;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export interface BookingWithContact extends BookingRow {
  contact_name: string | null;
  contact_email: string | null;
  contact_phone: string | null;
}

export async function insertBooking(
  db: Queryable,
  tenantId: string,
  input: {
    eventId: string;
    contactId: string;
    status: 'confirmed' | 'waitlist';
    waitlistPosition: number | null;
    paymentStatus: PaymentStatus;
    paymentAmount: number | null;
    channel: BookingChannel;
    metadata: Record<string, unknown>;
  },
): Promise<BookingRow> {
  return (await queryOne<BookingRow>(
    db,
    `INSERT INTO event_bookings (tenant_id, event_id, contact_id, status, waitlist_position,
       payment_status, payment_amount, booking_channel, metadata)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb) RETURNING *`,
    [
      tenantId,
      input.eventId,
      input.contactId,
      input.status,
      input.waitlistPosition,
      input.paymentStatus,
      input.paymentAmount,
      input.channel,
      JSON.stringify(input.metadata),
    ],
  ))!;
}

export function lockBooking(
  db: Queryable,
  tenantId: string,
  eventId: string,
  bookingId: string,
): Promise<BookingRow | undefined> {
  if (!isUuid(eventId) || !isUuid(bookingId)) return Promise.resolve(undefined);
  return queryOne<BookingRow>(
    db,
    'SELECT * FROM event_bookings WHERE tenant_id = $1 AND event_id = $2 AND id = $3 FOR UPDATE',
    [tenantId, eventId, bookingId],
  );
}

/** The contact's booking of the event that is not cancelled, if any. */
export function findOpenBooking(
  db: Queryable,
  tenantId: string,
  eventId: string,
  contactId: string,
): Promise<BookingRow | undefined> {
  return queryOne<BookingRow>(
    db,
    `SELECT * FROM event_bookings
     WHERE tenant_id = $1 AND event_id = $2 AND contact_id = $3 AND status <> 'cancelled'`,
    [tenantId, eventId, contactId],
  );
}

export function setBookingStatus(
  db: Queryable,
  tenantId: string,
  bookingId: string,
  status: 'attended' | 'no_show' | 'cancelled',
): Promise<BookingRow> {
  return queryOne<BookingRow>(
    db,
    `UPDATE event_bookings SET status = $3::varchar, waitlist_position = NULL, updated_at = now(),
       cancelled_at = CASE WHEN $3::varchar = 'cancelled' THEN now() ELSE cancelled_at END
     WHERE tenant_id = $1 AND id = $2 RETURNING *`,
    [tenantId, bookingId, status],
  ) as Promise<BookingRow>;
}

/** The first `count` waitlist bookings of the event by position, locked. */
export function nextOnWaitlist(db: Queryable, tenantId: string, eventId: string, count: number) {
  return db.query<BookingRow>(
    `SELECT * FROM event_bookings WHERE tenant_id = $1 AND event_id = $2 AND status = 'waitlist'
     ORDER BY waitlist_position LIMIT $3 FOR UPDATE`,
    [tenantId, eventId, count],
  );
}

export function promoteBooking(
  db: Queryable,
  tenantId: string,
  bookingId: string,
  payment: { payment_status: PaymentStatus; payment_amount: number | null },
): Promise<BookingRow> {
  return queryOne<BookingRow>(
    db,
    `UPDATE event_bookings SET status = 'confirmed', waitlist_position = NULL,
       payment_status = $3, payment_amount = $4, updated_at = now()
     WHERE tenant_id = $1 AND id = $2 AND status = 'waitlist' RETURNING *`,
    [tenantId, bookingId, payment.payment_status, payment.payment_amount],
  ) as Promise<BookingRow>;
}

/** Renumbers the waitlist 1..n in its present order (positions are unique only at commit). */
export async function renumberWaitlist(db: Queryable, tenantId: string, eventId: string): Promise<void> {
  await db.query(
    `UPDATE event_bookings b SET waitlist_position = r.rn, updated_at = now()
     FROM (SELECT id, row_number() OVER (ORDER BY waitlist_position, created_at, id)::int AS rn
           FROM event_bookings WHERE tenant_id = $1 AND event_id = $2 AND status = 'waitlist') r
     WHERE b.id = r.id AND b.waitlist_position <> r.rn`,
    [tenantId, eventId],
  );
}

/** Open bookings (confirmed or waitlist) of an event, locked, for cancelling them all. */
export function openBookingsOfEvent(db: Queryable, tenantId: string, eventId: string) {
  return db.query<BookingRow>(
    `SELECT * FROM event_bookings WHERE tenant_id = $1 AND event_id = $2
       AND status IN ('confirmed', 'waitlist') ORDER BY created_at, id FOR UPDATE`,
    [tenantId, eventId],
  );
}

export interface BookingListFilter {
  status?: BookingStatus;
  limit: number;
  after?: TimeCursor;
}

/** Bookings of an event in booking order (first come first), with the contact's name and reachability. */
export function listBookings(
  db: Queryable,
  tenantId: string,
  eventId: string,
  filter: BookingListFilter,
): Promise<(BookingWithContact & { cursor_at: string })[]> {
  const params: unknown[] = [tenantId, eventId];
  const where = ['b.tenant_id = $1', 'b.event_id = $2'];
  if (filter.status) {
    params.push(filter.status);
    where.push(`b.status = $${params.length}`);
  }
  if (filter.after) {
    params.push(filter.after.at, filter.after.id);
    where.push(`(b.created_at, b.id) > ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(filter.limit + 1);
  return db.query(
    `SELECT b.*, c.name AS contact_name, c.email AS contact_email, c.phone AS contact_phone,
            ${cursorTimestampSql('b.created_at')} AS cursor_at
     FROM event_bookings b JOIN contacts c ON c.id = b.contact_id
     WHERE ${where.join(' AND ')} ORDER BY b.created_at, b.id LIMIT $${params.length}`,
    params,
  );
}

/*
 * Provider callbacks arrive without a tenant: the signed payload names the booking (our id,
 * sent as client_reference_id) or the provider's payment intent. These are the only lookups
 * not scoped by a tenant; the tenant of the row found scopes everything after them.
 */

export function findBookingForProvider(db: Queryable, bookingId: string): Promise<BookingRow | undefined> {
  return queryOne<BookingRow>(db, 'SELECT * FROM event_bookings WHERE id = $1', [bookingId]);
}

export function findBookingByPaymentIntent(
  db: Queryable,
  paymentIntentId: string,
): Promise<BookingRow | undefined> {
  return queryOne<BookingRow>(
    db,
    'SELECT * FROM event_bookings WHERE provider_payment_intent_id = $1 ORDER BY created_at DESC LIMIT 1',
    [paymentIntentId],
  );
}

/** Records a provider delivery once; false when it was recorded before (a repeated delivery). */
export async function recordProviderEvent(
  db: Queryable,
  tenantId: string,
  input: { provider: string; eventId: string; type: string; bookingId: string },
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO payment_provider_events (tenant_id, provider, provider_event_id, type, booking_id)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (provider, provider_event_id) DO NOTHING RETURNING id`,
    [tenantId, input.provider, input.eventId, input.type, input.bookingId],
  );
  return rows.length > 0;
}

/** pending → paid; undefined when the booking was not waiting for a payment. */
export function markBookingPaid(
  db: Queryable,
  tenantId: string,
  bookingId: string,
  input: { paymentIntentId: string | null; amount: number | null },
): Promise<BookingRow | undefined> {
  return queryOne<BookingRow>(
    db,
    `UPDATE event_bookings SET payment_status = 'paid',
       provider_payment_intent_id = coalesce($3, provider_payment_intent_id),
       payment_amount = coalesce($4, payment_amount), updated_at = now()
     WHERE tenant_id = $1 AND id = $2 AND payment_status IN ('pending', 'not_required') RETURNING *`,
    [tenantId, bookingId, input.paymentIntentId, input.amount],
  );
}

/** paid → refunded; undefined when the booking was not paid. */
export function markBookingRefunded(
  db: Queryable,
  tenantId: string,
  bookingId: string,
): Promise<BookingRow | undefined> {
  return queryOne<BookingRow>(
    db,
    `UPDATE event_bookings SET payment_status = 'refunded', updated_at = now()
     WHERE tenant_id = $1 AND id = $2 AND payment_status = 'paid' RETURNING *`,
    [tenantId, bookingId],
  );
}

/* The bookings of one contact (for the person's merge, export and erasure). */

/** Bookings of the contact that still hold a place or a waitlist spot. */
export async function countOpenBookings(db: Queryable, tenantId: string, contactId: string): Promise<number> {
  const row = await queryOne<{ n: number }>(
    db,
    `SELECT count(*)::int AS n FROM event_bookings
     WHERE tenant_id = $1 AND contact_id = $2 AND status IN ('confirmed', 'waitlist')`,
    [tenantId, contactId],
  );
  return row?.n ?? 0;
}

/** Events whose counters include a booking of the contact (to recompute after deletion). */
export async function eventsOfContact(db: Queryable, tenantId: string, contactId: string): Promise<string[]> {
  const rows = await db.query<{ event_id: string }>(
    'SELECT DISTINCT event_id FROM event_bookings WHERE tenant_id = $1 AND contact_id = $2',
    [tenantId, contactId],
  );
  return rows.map((r) => r.event_id);
}

/** Events where both contacts hold an open booking (a merge would double-book them). */
export function findBookingClashes(
  db: Queryable,
  tenantId: string,
  targetId: string,
  sourceId: string,
): Promise<{ event_id: string; title: string }[]> {
  return db.query<{ event_id: string; title: string }>(
    `SELECT e.id AS event_id, e.title FROM event_bookings a
     JOIN event_bookings b ON b.event_id = a.event_id AND b.contact_id = $3 AND b.status <> 'cancelled'
     JOIN events e ON e.id = a.event_id
     WHERE a.tenant_id = $1 AND a.contact_id = $2 AND a.status <> 'cancelled'
     ORDER BY e.title`,
    [tenantId, targetId, sourceId],
  );
}

export async function moveBookings(
  db: Queryable,
  tenantId: string,
  fromId: string,
  toId: string,
): Promise<void> {
  await db.query(
    'UPDATE event_bookings SET contact_id = $3, updated_at = now() WHERE tenant_id = $1 AND contact_id = $2',
    [tenantId, fromId, toId],
  );
}

export function exportBookingsOfContact(
  db: Queryable,
  tenantId: string,
  contactId: string,
): Promise<Record<string, unknown>[]> {
  return db.query<Record<string, unknown>>(
    `SELECT b.id, b.event_id, e.title AS event_title, e.event_date, b.status, b.waitlist_position,
            b.payment_status, b.payment_amount, b.booking_channel, b.booked_at, b.cancelled_at,
            b.metadata, b.created_at, b.updated_at
     FROM event_bookings b JOIN events e ON e.id = b.event_id
     WHERE b.tenant_id = $1 AND b.contact_id = $2 ORDER BY b.created_at, b.id`,
    [tenantId, contactId],
  );
}

export function openBookingsOfContact(
  db: Queryable,
  tenantId: string,
  contactId: string,
): Promise<{ id: string; event_id: string; status: string }[]> {
  return db.query<{ id: string; event_id: string; status: string }>(
    `SELECT id, event_id, status FROM event_bookings
     WHERE tenant_id = $1 AND contact_id = $2 AND status IN ('confirmed', 'waitlist') ORDER BY created_at`,
    [tenantId, contactId],
  );
}

/** Deletes the contact's bookings; returns how many. */
export async function deleteBookingsOfContact(
  db: Queryable,
  tenantId: string,
  contactId: string,
): Promise<number> {
  const rows = await db.query<{ n: number }>(
    'WITH gone AS (DELETE FROM event_bookings WHERE tenant_id = $1 AND contact_id = $2 RETURNING 1) SELECT count(*)::int AS n FROM gone',
    [tenantId, contactId],
  );
  return rows[0]!.n;
}
