import type { Database } from '../../db/database.js';
import { decodeTimeCursor, DEFAULT_PAGE_SIZE, encodeTimeCursor, splitPage } from '../../shared/pagination.js';
import { conflict, notFound } from '../../http/errors.js';
import { lockEventsForUpdate, recomputeEventCounts } from '../events/repository.js';
import {
  countOpenBookings,
  deleteContactRow,
  eventsOfContact,
  findContact,
  insertContact,
  listBookingsOfContact,
  listContacts,
  listLeadsOfContact,
  lockContact,
  updateContact,
  type ContactFields,
  type ContactRow,
} from './repository.js';

const CONTACT_LIST = 'contacts';
const CONTACT_BOOKINGS = 'contact-bookings';
const CONTACT_LEADS = 'contact-leads';

export function serializeContact(contact: ContactRow) {
  return {
    id: contact.id,
    name: contact.name,
    email: contact.email,
    phone: contact.phone,
    sender_id: contact.sender_id,
    channel: contact.channel,
    metadata: contact.metadata,
    created_at: contact.created_at.toISOString(),
    updated_at: contact.updated_at.toISOString(),
  };
}

/** PostgreSQL's unique_violation: here only the per-tenant sender_id can collide. */
function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

const senderTaken = () =>
  conflict("Another contact of this tenant already has this 'sender_id'", {
    code: 'sender_taken',
    field: 'sender_id',
  });

export async function createContact(
  db: Database,
  tenantId: string,
  fields: ContactFields,
): Promise<ContactRow> {
  try {
    return await insertContact(db, tenantId, fields);
  } catch (error) {
    if (isUniqueViolation(error)) throw senderTaken();
    throw error;
  }
}

export async function getContact(db: Database, tenantId: string, contactId: string): Promise<ContactRow> {
  const contact = await findContact(db, tenantId, contactId);
  if (!contact) throw notFound('Contact');
  return contact;
}

export async function editContact(
  db: Database,
  tenantId: string,
  contactId: string,
  fields: ContactFields,
): Promise<ContactRow> {
  let contact: ContactRow | undefined;
  try {
    contact = await updateContact(db, tenantId, contactId, fields);
  } catch (error) {
    if (isUniqueViolation(error)) throw senderTaken();
    throw error;
  }
  if (!contact) throw notFound('Contact');
  return contact;
}

export async function listContactsPage(
  db: Database,
  tenantId: string,
  query: { limit?: number; cursor?: string; q?: string },
) {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await listContacts(db, tenantId, {
    q: query.q,
    limit,
    after: decodeTimeCursor(CONTACT_LIST, query.cursor),
  });
  const page = splitPage(rows, limit, (last) =>
    encodeTimeCursor(CONTACT_LIST, { at: last.cursor_at, id: last.id }),
  );
  return { data: page.data.map(serializeContact), next_cursor: page.next_cursor };
}

/**
 * Deletes a contact with its past bookings (cancelled, attended, no-show). A contact with a
 * confirmed or waitlist booking is kept: those bookings must be cancelled first, so that the
 * waitlist moves up and webhooks fire as for any cancellation. Event rows are locked before
 * the contact, in the same order as a booking takes them.
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

type SubPageQuery = { limit?: number; cursor?: string };

/**
 * One page of a list that hangs off a contact (bookings, leads), newest first by `cursor_at`;
 * another tenant's contact is 404.
 */
async function contactSubPage<Row extends { cursor_at: string }>(
  db: Database,
  tenantId: string,
  contactId: string,
  query: SubPageQuery,
  cursorKind: Parameters<typeof decodeTimeCursor>[0],
  rows: (limit: number, after: ReturnType<typeof decodeTimeCursor>) => Promise<Row[]>,
  idOf: (row: Row) => string,
): Promise<{ rows: Omit<Row, 'cursor_at'>[]; next_cursor: string | null }> {
  await getContact(db, tenantId, contactId);
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const found = await rows(limit, decodeTimeCursor(cursorKind, query.cursor));
  const page = splitPage(found, limit, (last) =>
    encodeTimeCursor(cursorKind, { at: last.cursor_at, id: idOf(last) }),
  );
  return { rows: page.data.map(({ cursor_at: _cursor, ...row }) => row), next_cursor: page.next_cursor };
}

/** The contact's bookings with their events, newest first; another tenant's contact is 404. */
export async function listContactBookingsPage(
  db: Database,
  tenantId: string,
  contactId: string,
  query: SubPageQuery,
) {
  const page = await contactSubPage(
    db,
    tenantId,
    contactId,
    query,
    CONTACT_BOOKINGS,
    (limit, after) => listBookingsOfContact(db, tenantId, contactId, { limit, after }),
    (row) => row.id,
  );
  return {
    data: page.rows.map((row) => ({
      ...row,
      booked_at: row.booked_at?.toISOString() ?? null,
      cancelled_at: row.cancelled_at?.toISOString() ?? null,
      created_at: row.created_at.toISOString(),
    })),
    next_cursor: page.next_cursor,
  };
}

/** Conversations linked to the contact by a recorded lead, newest first. */
export async function listContactLeadsPage(
  db: Database,
  tenantId: string,
  contactId: string,
  query: SubPageQuery,
) {
  const page = await contactSubPage(
    db,
    tenantId,
    contactId,
    query,
    CONTACT_LEADS,
    (limit, after) => listLeadsOfContact(db, tenantId, contactId, { limit, after }),
    (row) => row.conversation_id,
  );
  return {
    data: page.rows.map((row) => ({
      ...row,
      last_message_at: row.last_message_at?.toISOString() ?? null,
      created_at: row.created_at.toISOString(),
    })),
    next_cursor: page.next_cursor,
  };
}
