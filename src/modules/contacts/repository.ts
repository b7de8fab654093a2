import type { Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';
import { cursorTimestampSql, type TimeCursor } from '../../shared/pagination.js';
import { isUuid } from '../../shared/ids.js';
import { channelOf, kindsWhere } from '../channels/index.js';
import { looksLikeEmail, normalizePhone } from './identity.js';

/** The channels a contact may have come in on (the registry's `contactChannel`), and `manual`. */
export const CONTACT_CHANNELS = [...kindsWhere('contactChannel'), 'manual' as const];
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

/** Gives a contact without a name this one (a name typed meanwhile is kept). */
export async function nameUnnamedContact(
  db: Queryable,
  tenantId: string,
  contactId: string,
  name: string,
): Promise<void> {
  await db.query(
    'UPDATE contacts SET name = $3, updated_at = now() WHERE tenant_id = $1 AND id = $2 AND name IS NULL',
    [tenantId, contactId, name],
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
 * indexes on (tenant_id, sender_id), e-mail and phone decide, and the loser of a race reads
 * the winner's row. A sender_id that is an e-mail address (or, on phone channels, a phone
 * number) finds the contact that already has that address or number.
 */
export async function findOrCreateContactBySender(
  tx: Queryable,
  tenantId: string,
  input: { senderId: string; channel: string | null },
): Promise<ContactRow> {
  const email = looksLikeEmail(input.senderId) ? input.senderId.trim() : null;
  const phone =
    !email && input.channel !== null && channelOf(input.channel).address === 'phone'
      ? normalizePhone(input.senderId)
      : null;
  const inserted = await queryOne<ContactRow>(
    tx,
    `INSERT INTO contacts (tenant_id, sender_id, channel, email, phone) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT DO NOTHING
     RETURNING *`,
    [tenantId, input.senderId, input.channel, email, phone],
  );
  if (inserted) return inserted;
  return (await queryOne<ContactRow>(
    tx,
    `SELECT * FROM contacts
     WHERE tenant_id = $1 AND (sender_id = $2 OR email_key = lower(btrim($3::text)) OR phone_key = $4::text)
     ORDER BY (sender_id = $2) DESC NULLS LAST, created_at, id LIMIT 1`,
    [tenantId, input.senderId, email, phone],
  ))!;
}

/**
 * The tenant's contact with this e-mail address or phone number (E.164), created when there
 * is none; a found contact without a name gets the given one. Two concurrent calls for the
 * same new address make one contact: the unique indexes decide, the loser reads the winner.
 */
export async function findOrCreateContactByIdentity(
  tx: Queryable,
  tenantId: string,
  input: { name: string | null; email: string | null; phone: string | null; channel: string | null },
): Promise<{ contact: ContactRow; created: boolean }> {
  const inserted = await queryOne<ContactRow>(
    tx,
    `INSERT INTO contacts (tenant_id, name, email, phone, channel) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT DO NOTHING
     RETURNING *`,
    [tenantId, input.name, input.email, input.phone, input.channel],
  );
  if (inserted) return { contact: inserted, created: true };
  const found = (await queryOne<ContactRow>(
    tx,
    `SELECT * FROM contacts
     WHERE tenant_id = $1 AND (email_key = lower(btrim($2::text)) OR phone_key = $3::text)
     ORDER BY (email_key = lower(btrim($2::text))) DESC NULLS LAST, created_at, id LIMIT 1`,
    [tenantId, input.email, input.phone],
  ))!;
  if (found.name === null && input.name !== null) {
    const named = await queryOne<ContactRow>(
      tx,
      `UPDATE contacts SET name = $3, updated_at = now()
       WHERE tenant_id = $1 AND id = $2 AND name IS NULL RETURNING *`,
      [tenantId, found.id, input.name],
    );
    return { contact: named ?? found, created: false };
  }
  return { contact: found, created: false };
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

/** A conversation of a person, with its bot's name. */
export interface PersonConversationRow {
  id: string;
  bot_id: string;
  bot_name: string;
  channel: string;
  sender_id: string | null;
  status: string;
  message_count: number;
  last_message_at: Date | null;
  created_at: Date;
}

export type ContactLeadRow = Omit<PersonConversationRow, 'id'> & {
  conversation_id: string;
  cursor_at: string;
};

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

/** Conversations of the person: linked by a lead or a merge, or of the contact's chat sender. */
const PERSON_CONVERSATIONS = `tenant_id = $1 AND (contact_id = $2 OR (sender_id IS NOT NULL
  AND (sender_id = $3 OR lower(btrim(sender_id)) = lower(btrim($4::text)))))`;

type Person = Pick<ContactRow, 'id' | 'sender_id' | 'email'>;

/** The person's conversations on every channel, newest first (at most `limit`). */
export function listConversationsOfPerson(
  db: Queryable,
  tenantId: string,
  person: Person,
  limit: number,
): Promise<PersonConversationRow[]> {
  return db.query<PersonConversationRow>(
    `SELECT c.id, c.bot_id, b.name AS bot_name, c.channel, c.sender_id, c.status, c.message_count,
            c.last_message_at, c.created_at
     FROM conversations c JOIN bots b ON b.id = c.bot_id
     WHERE ${PERSON_CONVERSATIONS.replace(/\b(tenant_id|contact_id|sender_id)\b/g, 'c.$1')}
     ORDER BY c.created_at DESC, c.id DESC LIMIT $5`,
    [tenantId, person.id, person.sender_id, person.email, limit],
  );
}

/** The target keeps its fields and takes the source's where its own are empty; its metadata wins. */
export async function mergeContactFields(
  db: Queryable,
  tenantId: string,
  targetId: string,
  source: ContactRow,
): Promise<ContactRow> {
  return (await queryOne<ContactRow>(
    db,
    `UPDATE contacts SET name = coalesce(name, $3), email = coalesce(email, $4), phone = coalesce(phone, $5),
       sender_id = coalesce(sender_id, $6), channel = coalesce(channel, $7),
       metadata = $8::jsonb || metadata, updated_at = now()
     WHERE tenant_id = $1 AND id = $2 RETURNING *`,
    [
      tenantId,
      targetId,
      source.name,
      source.email,
      source.phone,
      source.sender_id,
      source.channel,
      JSON.stringify(source.metadata ?? {}),
    ],
  ))!;
}

export function exportConversationsOfPerson(
  db: Queryable,
  tenantId: string,
  person: Person,
): Promise<(Record<string, unknown> & { id: string })[]> {
  return db.query<Record<string, unknown> & { id: string }>(
    `SELECT id, bot_id, channel, sender_id, status, metadata, rating, rating_comment, rated_at,
            created_at, last_message_at
     FROM conversations WHERE ${PERSON_CONVERSATIONS} ORDER BY created_at, id`,
    [tenantId, person.id, person.sender_id, person.email],
  );
}

export async function exportMessagesOf(
  db: Queryable,
  tenantId: string,
  conversationIds: string[],
): Promise<(Record<string, unknown> & { conversation_id: string })[]> {
  if (conversationIds.length === 0) return [];
  return db.query<Record<string, unknown> & { conversation_id: string }>(
    `SELECT conversation_id, id, role, content, channel, created_at FROM messages
     WHERE tenant_id = $1 AND conversation_id = ANY($2::uuid[]) ORDER BY conversation_id, seq`,
    [tenantId, conversationIds],
  );
}

export interface LeadContact {
  id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  sender_id: string | null;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

const LEAD_COLUMNS = 'id, name, email, phone, sender_id, metadata, created_at, updated_at';

/** Serialises leads with the same address (two must not create two contacts). */
export async function lockLeadAddress(db: Queryable, tenantId: string, email: string): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
    `contact:${tenantId}:${email.toLowerCase()}`,
  ]);
}

/** The oldest contact matching one column, locked. */
export function lockContactWhere(
  db: Queryable,
  tenantId: string,
  column: 'id' | 'sender_id' | 'email' | 'phone',
  value: string,
): Promise<{ id: string } | undefined> {
  const condition = {
    id: 'id = $2',
    sender_id: 'sender_id = $2',
    email: 'lower(email) = lower($2)',
    phone: 'phone_key = $2',
  }[column];
  return queryOne<{ id: string }>(
    db,
    `SELECT id FROM contacts WHERE tenant_id = $1 AND ${condition} ORDER BY created_at LIMIT 1 FOR UPDATE`,
    [tenantId, value],
  );
}

type LeadFields = [name: string | null, email: string | null, phone: string | null, metadata: string];

/**
 * Given fields replace stored ones (an address or number another contact holds is not taken),
 * missing fields keep theirs, metadata is merged.
 */
export async function updateLeadContact(
  db: Queryable,
  tenantId: string,
  contactId: string,
  fields: LeadFields,
): Promise<LeadContact> {
  return (await queryOne<LeadContact>(
    db,
    `UPDATE contacts SET name = coalesce($3, name),
       email = coalesce((SELECT $4::text WHERE NOT EXISTS (SELECT 1 FROM contacts o
         WHERE o.tenant_id = $1 AND o.id <> $2 AND o.email_key = lower(btrim($4::text)))), email),
       phone = coalesce((SELECT $5::text WHERE NOT EXISTS (SELECT 1 FROM contacts o
         WHERE o.tenant_id = $1 AND o.id <> $2 AND o.phone_key = regexp_replace($5::text, '[[:space:]()./-]', '', 'g'))), phone),
       metadata = metadata || $6::jsonb, updated_at = now()
     WHERE tenant_id = $1 AND id = $2 RETURNING ${LEAD_COLUMNS}`,
    [tenantId, contactId, ...fields],
  ))!;
}

/** A new contact of the lead; the sender may have become one concurrently: merged into it. */
export async function insertLeadContact(
  db: Queryable,
  tenantId: string,
  fields: LeadFields,
  origin: { senderId: string | null; channel: string },
): Promise<LeadContact & { created: boolean }> {
  return (await queryOne<LeadContact & { created: boolean }>(
    db,
    `INSERT INTO contacts (tenant_id, name, email, phone, metadata, sender_id, channel)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7)
     ON CONFLICT (tenant_id, sender_id) WHERE sender_id IS NOT NULL DO UPDATE SET
       name = coalesce(EXCLUDED.name, contacts.name), email = coalesce(EXCLUDED.email, contacts.email),
       phone = coalesce(EXCLUDED.phone, contacts.phone), metadata = contacts.metadata || EXCLUDED.metadata,
       updated_at = now()
     RETURNING ${LEAD_COLUMNS}, (xmax = 0) AS created`,
    [tenantId, ...fields, origin.senderId, origin.channel],
  ))!;
}
