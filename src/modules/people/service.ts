/**
 * A contact as a person: merging two records of the same person, the person's conversations
 * across channels, and a data-protection request's export and erasure.
 */
import type { Database, Queryable } from '../../db/database.js';
import { badRequest, conflict, notFound } from '../../http/errors.js';
import { isUuid } from '../../shared/ids.js';
import {
  settleCapacity,
  setBookingStatus,
  findEvent,
  lockEventsForUpdate,
  recomputeEventCounts,
  signalBooking,
  countOpenBookings,
  deleteBookingsOfContact,
  eventsOfContact,
  exportBookingsOfContact,
  findBookingClashes,
  moveBookings,
  openBookingsOfContact,
} from '../events/index.js';
import {
  deleteConversationsOfPerson,
  relinkConversationsOfPerson as moveConversationsOfPerson,
} from '../conversations/index.js';
import { forgetSender, lastBounceOf } from '../mailboxes/index.js';
import {
  deleteContactRow,
  exportConversationsOfPerson,
  exportMessagesOf,
  findContact,
  listConversationsOfPerson,
  lockContact,
  mergeContactFields,
  type ContactRow,
  serializeContact,
} from '../contacts/index.js';
import { forgetRefusalsOfPerson, refusalsOfPerson } from '../chat/index.js';

/**
 * A contact for its page: its fields and, when replies to its e-mail address bounced, the
 * latest bounce with its date and the receiving server's words (the warning on the contact).
 */
export async function contactDetail(db: Queryable, contact: ContactRow) {
  const bounce = contact.email ? await lastBounceOf(db, contact.tenant_id, contact.email) : null;
  return { ...serializeContact(contact), email_bounced: bounce };
}

/**
 * Deletes a contact with its past bookings (cancelled, attended, no-show). A contact with a
 * confirmed or waitlist booking is kept: those bookings must be cancelled first, so that the
 * waitlist moves up and webhooks fire as for any cancellation. Event rows are locked before
 * the contact, in the same order as a booking takes them. It lives here, beside the other
 * writes that reach into events, so that the contacts service (which bookings read) imports
 * nothing of events.
 */
export async function deleteContact(db: Database, tenantId: string, contactId: string): Promise<void> {
  await db.transaction(async (tx) => {
    if (!(await findContact(tx, tenantId, contactId))) throw notFound('Contact');
    const eventIds = await eventsOfContact(tx, tenantId, contactId);
    await lockEventsForUpdate(tx, tenantId, eventIds);
    if (!(await lockContact(tx, tenantId, contactId))) throw notFound('Contact');
    const open = await countOpenBookings(tx, tenantId, contactId);
    if (open > 0) {
      throw conflict(
        `Contact has ${open} confirmed or waitlist booking(s); cancel them before deleting the contact`,
      );
    }
    await deleteContactRow(tx, tenantId, contactId);
    for (const eventId of eventIds) await recomputeEventCounts(tx, tenantId, eventId);
  });
}

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
    const clashes = await findBookingClashes(tx, tenantId, targetId, sourceId);
    if (clashes.length > 0) {
      throw conflict(
        `Both contacts have a booking for ${clashes.map((c) => `'${c.title}'`).join(', ')}; cancel one of them before merging`,
        { code: 'merge_booking_conflict', event_ids: clashes.map((c) => c.event_id) },
      );
    }
    await moveBookings(tx, tenantId, sourceId, targetId);
    await moveConversationsOfPerson(
      tx,
      tenantId,
      { contactId: sourceId, senderId: source.sender_id, email: source.email },
      targetId,
    );
    await deleteContactRow(tx, tenantId, sourceId);
    const merged = await mergeContactFields(tx, tenantId, targetId, source);
    return merged!;
  });
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
  const rows = await listConversationsOfPerson(db, tenantId, contact, limit);
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
 * title and date), its conversations with every message, the staff notes on them, and the
 * messages a guard refused to answer (with their excerpt).
 */
export async function exportPerson(db: Database, tenantId: string, contactId: string) {
  const contact = await findContact(db, tenantId, contactId);
  if (!contact) throw notFound('Contact');
  const bookings = await exportBookingsOfContact(db, tenantId, contactId);
  const conversations = await exportConversationsOfPerson(db, tenantId, contact);
  const conversationIds = conversations.map((c) => c.id);
  const messages = await exportMessagesOf(db, tenantId, conversationIds);
  const refusals = await refusalsOfPerson(db, tenantId, {
    senderId: contact.sender_id,
    email: contact.email,
    conversationIds,
  });
  return {
    exported_at: new Date().toISOString(),
    contact: serializeContact(contact),
    bookings: bookings.map(isoRow),
    refusals,
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
    const open = await openBookingsOfContact(tx, tenantId, contactId);
    for (const booking of open) {
      const event = (await findEvent(tx, tenantId, booking.event_id))!;
      const cancelled = await setBookingStatus(tx, tenantId, booking.id, 'cancelled');
      await signalBooking(tx, 'booking.cancelled', event, cancelled, {
        previous_status: booking.status,
        reason: 'contact_erased',
      });
    }
    const conversations = await deleteConversationsOfPerson(tx, tenantId, {
      contactId,
      senderId: contact.sender_id,
      email: contact.email,
    });
    // Mails received from the person's address keep sender and text apart from the conversation.
    if (contact.email) await forgetSender(tx, tenantId, contact.email);
    // So do refused messages that opened no conversation.
    await forgetRefusalsOfPerson(tx, tenantId, { senderId: contact.sender_id, email: contact.email });
    const bookings = await deleteBookingsOfContact(tx, tenantId, contactId);
    await deleteContactRow(tx, tenantId, contactId);
    for (const eventId of eventIds) {
      const freed = open.some((b) => b.event_id === eventId && b.status === 'confirmed');
      if (freed) await settleCapacity(tx, tenantId, eventId, { placesFreed: true });
      else await recomputeEventCounts(tx, tenantId, eventId);
    }
    return {
      contact_id: contactId,
      conversations: conversations.conversations,
      messages: conversations.messages,
      bookings,
      cancelled_bookings: open.length,
    };
  });
}
