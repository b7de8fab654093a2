import type { Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';
import { cursorTimestampSql, type TimeCursor } from '../../shared/pagination.js';
import { isUuid } from '../../shared/ids.js';

export const CONTACT_CHANNELS = ['whatsapp', 'voice', 'email', 'api', 'webhook', 'manual'] as const;
export type ContactChannel = (typeof CONTACT_CHANNELS)[number];

export interface ContactRow {
  id: string;
  tenant_id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  sender_id: string | null;
  channel: string | null;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export type ContactFields = Partial<
  Pick<ContactRow, 'name' | 'email' | 'phone' | 'sender_id' | 'channel' | 'metadata'>
>;

const WRITABLE: (keyof ContactFields)[] = ['name', 'email', 'phone', 'sender_id', 'channel', 'metadata'];

function valueOf(fields: ContactFields, column: keyof ContactFields): unknown {
  const value = fields[column];
  return column === 'metadata' && value !== null ? JSON.stringify(value) : value;
}

export async function insertContact(
  db: Queryable,
  tenantId: string,
  fields: ContactFields,
): Promise<ContactRow> {
  const columns = WRITABLE.filter((c) => fields[c] !== undefined);
  const placeholders = columns.map((_, i) => `$${i + 2}`);
  return (await queryOne<ContactRow>(
    db,
    columns.length === 0
      ? 'INSERT INTO contacts (tenant_id) VALUES ($1) RETURNING *'
      : `INSERT INTO contacts (tenant_id, ${columns.join(', ')}) VALUES ($1, ${placeholders.join(', ')}) RETURNING *`,
    [tenantId, ...columns.map((c) => valueOf(fields, c))],
  ))!;
}

export async function updateContact(
  db: Queryable,
  tenantId: string,
  contactId: string,
  fields: ContactFields,
): Promise<ContactRow | undefined> {
  if (!isUuid(contactId)) return undefined;
  const columns = WRITABLE.filter((c) => fields[c] !== undefined);
  if (columns.length === 0) return findContact(db, tenantId, contactId);
  const sets = columns.map((c, i) => `${c} = $${i + 3}`);
  return queryOne<ContactRow>(
    db,
    `UPDATE contacts SET ${sets.join(', ')}, updated_at = now() WHERE tenant_id = $1 AND id = $2 RETURNING *`,
    [tenantId, contactId, ...columns.map((c) => valueOf(fields, c))],
  );
}

export function findContact(
  db: Queryable,
  tenantId: string,
  contactId: string,
): Promise<ContactRow | undefined> {
  if (!isUuid(contactId)) return Promise.resolve(undefined);
  return queryOne<ContactRow>(db, 'SELECT * FROM contacts WHERE tenant_id = $1 AND id = $2', [
    tenantId,
    contactId,
  ]);
}

/** Locks the contact row: serialises its deletion against new bookings of the contact. */
export function lockContact(
  db: Queryable,
  tenantId: string,
  contactId: string,
): Promise<ContactRow | undefined> {
  if (!isUuid(contactId)) return Promise.resolve(undefined);
  return queryOne<ContactRow>(db, 'SELECT * FROM contacts WHERE tenant_id = $1 AND id = $2 FOR UPDATE', [
    tenantId,
    contactId,
  ]);
}

export interface ContactListFilter {
  q?: string;
  limit: number;
  after?: TimeCursor;
}

export type ContactListRow = ContactRow & { cursor_at: string };

/** Newest first; `q` matches name, e-mail, phone or sender_id (case-insensitive substring). */
export function listContacts(
  db: Queryable,
  tenantId: string,
  filter: ContactListFilter,
): Promise<ContactListRow[]> {
  const params: unknown[] = [tenantId];
  const where = ['tenant_id = $1'];
  if (filter.q) {
    params.push(`%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    const p = `$${params.length}`;
    where.push(`(name ILIKE ${p} OR email ILIKE ${p} OR phone ILIKE ${p} OR sender_id ILIKE ${p})`);
  }
  if (filter.after) {
    params.push(filter.after.at, filter.after.id);
    where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(filter.limit + 1);
  return db.query<ContactListRow>(
    `SELECT *, ${cursorTimestampSql('created_at')} AS cursor_at
     FROM contacts WHERE ${where.join(' AND ')}
     ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
}

/**
 * The contact of a chat sender, created on first use. Safe under concurrency: the unique
 * index on (tenant_id, sender_id) decides, and the loser of a race reads the winner's row.
 */
export async function findOrCreateContactBySender(
  tx: Queryable,
  tenantId: string,
  input: { senderId: string; channel: string | null },
): Promise<ContactRow> {
  const inserted = await queryOne<ContactRow>(
    tx,
    `INSERT INTO contacts (tenant_id, sender_id, channel) VALUES ($1, $2, $3)
     ON CONFLICT (tenant_id, sender_id) WHERE sender_id IS NOT NULL DO NOTHING
     RETURNING *`,
    [tenantId, input.senderId, input.channel],
  );
  if (inserted) return inserted;
  return (await queryOne<ContactRow>(tx, 'SELECT * FROM contacts WHERE tenant_id = $1 AND sender_id = $2', [
    tenantId,
    input.senderId,
  ]))!;
}

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

export async function deleteContactRow(db: Queryable, tenantId: string, contactId: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM contacts WHERE tenant_id = $1 AND id = $2 RETURNING id', [
    tenantId,
    contactId,
  ]);
  return rows.length > 0;
}

export interface ContactBookingRow {
  id: string;
  event_id: string;
  event_title: string;
  event_date: string;
  event_status: string;
  status: string;
  waitlist_position: number | null;
  payment_status: string;
  payment_amount: number | null;
  currency: string;
  booking_channel: string;
  booked_at: Date | null;
  cancelled_at: Date | null;
  created_at: Date;
  cursor_at: string;
}

/** The contact's bookings with their events, newest first. */
export function listBookingsOfContact(
  db: Queryable,
  tenantId: string,
  contactId: string,
  filter: { limit: number; after?: TimeCursor },
): Promise<ContactBookingRow[]> {
  const params: unknown[] = [tenantId, contactId];
  let after = '';
  if (filter.after) {
    params.push(filter.after.at, filter.after.id);
    after = 'AND (b.created_at, b.id) < ($3::timestamptz, $4::uuid)';
  }
  params.push(filter.limit + 1);
  return db.query<ContactBookingRow>(
    `SELECT b.id, b.event_id, e.title AS event_title, e.event_date, e.status AS event_status, b.status,
            b.waitlist_position, b.payment_status, b.payment_amount, e.currency, b.booking_channel,
            b.booked_at, b.cancelled_at, b.created_at, ${cursorTimestampSql('b.created_at')} AS cursor_at
     FROM event_bookings b JOIN events e ON e.tenant_id = b.tenant_id AND e.id = b.event_id
     WHERE b.tenant_id = $1 AND b.contact_id = $2 ${after}
     ORDER BY b.created_at DESC, b.id DESC LIMIT $${params.length}`,
    params,
  );
}

export interface ContactLeadRow {
  conversation_id: string;
  bot_id: string;
  bot_name: string;
  channel: string;
  sender_id: string | null;
  status: string;
  message_count: number;
  last_message_at: Date | null;
  created_at: Date;
  cursor_at: string;
}

/**
 * Conversations linked to the contact: a lead recorded for a conversation links it
 * (`conversations.contact_id`), newest first.
 */
export function listLeadsOfContact(
  db: Queryable,
  tenantId: string,
  contactId: string,
  filter: { limit: number; after?: TimeCursor },
): Promise<ContactLeadRow[]> {
  const params: unknown[] = [tenantId, contactId];
  let after = '';
  if (filter.after) {
    params.push(filter.after.at, filter.after.id);
    after = 'AND (c.created_at, c.id) < ($3::timestamptz, $4::uuid)';
  }
  params.push(filter.limit + 1);
  return db.query<ContactLeadRow>(
    `SELECT c.id AS conversation_id, c.bot_id, b.name AS bot_name, c.channel, c.sender_id, c.status,
            c.message_count, c.last_message_at, c.created_at, ${cursorTimestampSql('c.created_at')} AS cursor_at
     FROM conversations c JOIN bots b ON b.tenant_id = c.tenant_id AND b.id = c.bot_id
     WHERE c.tenant_id = $1 AND c.contact_id = $2 ${after}
     ORDER BY c.created_at DESC, c.id DESC LIMIT $${params.length}`,
    params,
  );
}
