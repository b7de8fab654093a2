/**
 * A contact as a person: merging two records of the same person, the person's conversations
 * across channels, and a data-protection request's export and erasure.
 */
import type { Database, Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';
import { badRequest, conflict, notFound } from '../../http/errors.js';
import { isUuid } from '../../shared/ids.js';
import { settleCapacity } from '../events/capacity.js';
import { findEvent, lockEventsForUpdate, recomputeEventCounts, setBookingStatus } from '../events/service.js';
import { signalBooking } from '../events/signals.js';
import { eventsOfContact, findContact, lockContact, type ContactRow } from './repository.js';
import { serializeContact } from './service.js';

/** Conversations of the person: linked by a lead or a merge, or of the contact's chat sender. */
const PERSON_CONVERSATIONS = `tenant_id = $1 AND (contact_id = $2 OR (sender_id IS NOT NULL AND sender_id = $3))`;

async function lockPair(
  tx: Queryable,
  tenantId: string,
  ids: [string, string],
): Promise<[ContactRow, ContactRow]> {
  const rows: ContactRow[] = [];
  for (const id of [...ids].sort()) {
    const row = await lockContact(tx, tenantId, id);
    if (!row) throw notFound('Contact');
    rows.push(row);
  }
  const byId = (id: string) => rows.find((r) => r.id === id)!;
  return [byId(ids[0]), byId(ids[1])];
}

/**
 * Merges `sourceId` into `targetId`: bookings, linked conversations (leads) and the
 * conversations of the source's chat sender move to the target; the target keeps its fields
 * and takes the source's where its own are empty; metadata is combined (the target's values
 * win); the source is deleted. Refused (409 merge_booking_conflict) when both hold an open
 * booking of the same event: one of them must be cancelled first. One transaction.
 */
export async function mergeContacts(
  db: Database,
  tenantId: string,
  targetId: string,
  sourceId: string,
): Promise<ContactRow> {
  if (!isUuid(targetId)) throw notFound('Contact');
  if (!isUuid(sourceId)) {
    throw badRequest("Field 'contact_id' does not name a contact of this tenant", {
      code: 'reference_unknown',
      field: 'contact_id',
    });
  }
  if (targetId === sourceId) {
    throw badRequest('A contact cannot be merged into itself', {
      code: 'merge_same_contact',
      field: 'contact_id',
    });
  }
  return db.transaction(async (tx) => {
    if (!(await findContact(tx, tenantId, targetId))) throw notFound('Contact');
    if (!(await findContact(tx, tenantId, sourceId))) {
      throw badRequest("Field 'contact_id' does not name a contact of this tenant", {
        code: 'reference_unknown',
        field: 'contact_id',
      });
    }
    // Events before contacts, as a booking takes them.
    const eventIds = [
      ...new Set([
        ...(await eventsOfContact(tx, tenantId, targetId)),
        ...(await eventsOfContact(tx, tenantId, sourceId)),
      ]),
    ];
    await lockEventsForUpdate(tx, tenantId, eventIds);
    const [, source] = await lockPair(tx, tenantId, [targetId, sourceId]);
    const clashes = await tx.query<{ event_id: string; title: string }>(
      `SELECT e.id AS event_id, e.title FROM event_bookings a
       JOIN event_bookings b ON b.event_id = a.event_id AND b.contact_id = $3 AND b.status <> 'cancelled'
       JOIN events e ON e.id = a.event_id
       WHERE a.tenant_id = $1 AND a.contact_id = $2 AND a.status <> 'cancelled'
       ORDER BY e.title`,
      [tenantId, targetId, sourceId],
    );
    if (clashes.length > 0) {
      throw conflict(
        `Both contacts have a booking for ${clashes.map((c) => `'${c.title}'`).join(', ')}; cancel one of them before merging`,
        { code: 'merge_booking_conflict', event_ids: clashes.map((c) => c.event_id) },
      );
    }
    await tx.query(
      'UPDATE event_bookings SET contact_id = $3, updated_at = now() WHERE tenant_id = $1 AND contact_id = $2',
      [tenantId, sourceId, targetId],
    );
    await tx.query(
      `UPDATE conversations SET contact_id = $4, updated_at = now() WHERE ${PERSON_CONVERSATIONS}`,
      [tenantId, sourceId, source.sender_id, targetId],
    );
    await tx.query('DELETE FROM contacts WHERE tenant_id = $1 AND id = $2', [tenantId, sourceId]);
    const merged = await queryOne<ContactRow>(
      tx,
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
    );
    return merged!;
  });
}

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

/** The person's conversations on every channel, newest first (at most `limit`). */
export async function listPersonConversations(
  db: Database,
  tenantId: string,
  contactId: string,
  limit: number,
) {
  const contact = await findContact(db, tenantId, contactId);
  if (!contact) throw notFound('Contact');
  const rows = await db.query<PersonConversationRow>(
    `SELECT c.id, c.bot_id, b.name AS bot_name, c.channel, c.sender_id, c.status, c.message_count,
            c.last_message_at, c.created_at
     FROM conversations c JOIN bots b ON b.id = c.bot_id
     WHERE c.tenant_id = $1 AND (c.contact_id = $2 OR (c.sender_id IS NOT NULL AND c.sender_id = $3))
     ORDER BY c.created_at DESC, c.id DESC LIMIT $4`,
    [tenantId, contactId, contact.sender_id, limit],
  );
  return {
    data: rows.map((r) => ({
      ...r,
      last_message_at: r.last_message_at?.toISOString() ?? null,
      created_at: r.created_at.toISOString(),
    })),
  };
}

const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : value);
const isoRow = <T extends Record<string, unknown>>(row: T) =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, iso(v)]));

/**
 * Everything the service keeps of the person: the contact, its bookings (with the event's
 * title and date), its conversations with every message, and the staff notes on them.
 */
export async function exportPerson(db: Database, tenantId: string, contactId: string) {
  const contact = await findContact(db, tenantId, contactId);
  if (!contact) throw notFound('Contact');
  const bookings = await db.query<Record<string, unknown>>(
    `SELECT b.id, b.event_id, e.title AS event_title, e.event_date, b.status, b.waitlist_position,
            b.payment_status, b.payment_amount, b.booking_channel, b.booked_at, b.cancelled_at,
            b.metadata, b.created_at, b.updated_at
     FROM event_bookings b JOIN events e ON e.id = b.event_id
     WHERE b.tenant_id = $1 AND b.contact_id = $2 ORDER BY b.created_at, b.id`,
    [tenantId, contactId],
  );
  const conversations = await db.query<Record<string, unknown> & { id: string }>(
    `SELECT id, bot_id, channel, sender_id, status, metadata, rating, rating_comment, rated_at,
            created_at, last_message_at
     FROM conversations WHERE ${PERSON_CONVERSATIONS} ORDER BY created_at, id`,
    [tenantId, contactId, contact.sender_id],
  );
  const ids = conversations.map((c) => c.id);
  const messages =
    ids.length === 0
      ? []
      : await db.query<Record<string, unknown> & { conversation_id: string }>(
          `SELECT conversation_id, id, role, content, channel, created_at FROM messages
           WHERE tenant_id = $1 AND conversation_id = ANY($2::uuid[]) ORDER BY conversation_id, seq`,
          [tenantId, ids],
        );
  return {
    exported_at: new Date().toISOString(),
    contact: serializeContact(contact),
    bookings: bookings.map(isoRow),
    conversations: conversations.map((c) => ({
      ...isoRow(c),
      messages: messages
        .filter((m) => m.conversation_id === c.id)
        .map(({ conversation_id: _c, ...m }) => isoRow(m)),
    })),
  };
}

/**
 * Erases the person: open bookings are cancelled first (the waitlist moves up, webhooks fire
 * as for any cancellation), then the person's conversations (with their messages and notes),
 * bookings and the contact itself are deleted, and the events' counters recounted. Nothing of
 * another person is touched. One transaction.
 */
export async function erasePerson(db: Database, tenantId: string, contactId: string) {
  return db.transaction(async (tx) => {
    if (!(await findContact(tx, tenantId, contactId))) throw notFound('Contact');
    const eventIds = await eventsOfContact(tx, tenantId, contactId);
    await lockEventsForUpdate(tx, tenantId, eventIds);
    const contact = await lockContact(tx, tenantId, contactId);
    if (!contact) throw notFound('Contact');
    const open = await tx.query<{ id: string; event_id: string; status: string }>(
      `SELECT id, event_id, status FROM event_bookings
       WHERE tenant_id = $1 AND contact_id = $2 AND status IN ('confirmed', 'waitlist') ORDER BY created_at`,
      [tenantId, contactId],
    );
    for (const booking of open) {
      const event = (await findEvent(tx, tenantId, booking.event_id))!;
      const cancelled = await setBookingStatus(tx, tenantId, booking.id, 'cancelled');
      await signalBooking(tx, 'booking.cancelled', event, cancelled, {
        previous_status: booking.status,
        reason: 'contact_erased',
      });
    }
    const conversations = await tx.query<{ n: number }>(
      `WITH gone AS (DELETE FROM conversations WHERE ${PERSON_CONVERSATIONS} RETURNING message_count)
       SELECT count(*)::int AS n, coalesce(sum(message_count), 0)::int AS messages FROM gone`,
      [tenantId, contactId, contact.sender_id],
    );
    const bookings = await tx.query<{ n: number }>(
      'WITH gone AS (DELETE FROM event_bookings WHERE tenant_id = $1 AND contact_id = $2 RETURNING 1) SELECT count(*)::int AS n FROM gone',
      [tenantId, contactId],
    );
    await tx.query('DELETE FROM contacts WHERE tenant_id = $1 AND id = $2', [tenantId, contactId]);
    for (const eventId of eventIds) {
      const freed = open.some((b) => b.event_id === eventId && b.status === 'confirmed');
      if (freed) await settleCapacity(tx, tenantId, eventId, { placesFreed: true });
      else await recomputeEventCounts(tx, tenantId, eventId);
    }
    const c = conversations[0] as unknown as { n: number; messages: number };
    return {
      contact_id: contactId,
      conversations: c.n,
      messages: c.messages,
      bookings: bookings[0]!.n,
      cancelled_bookings: open.length,
    };
  });
}
