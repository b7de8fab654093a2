import type { Static } from '@sinclair/typebox';
import type { Database, Queryable } from '../../db/database.js';
import type { LeadBody } from '../webhooks/index.js';
import { decodeTimeCursor, DEFAULT_PAGE_SIZE, encodeTimeCursor, splitPage } from '../../shared/pagination.js';
import { badRequest, conflict, notFound } from '../../http/errors.js';
import { normalizePhone } from './identity.js';
import {
  findContact,
  findOrCreateContactByIdentity,
  insertContact,
  listBookingsOfContact,
  listContacts,
  listLeadsOfContact,
  updateContact,
  type ContactFields,
  type ContactRow,
} from './repository.js';
import * as repo from './repository.js';

/** Used by events (bookings and the chat extension) to find or create the contact of a booking. */

/**
 * The person an e-mail is answered to (Reply-To's first address, or From): one contact per
 * address, found by sender id or e-mail, made when there is none; a contact without a name
 * gets the display name of the mail.
 */
export async function contactOfMailPerson(
  db: Queryable,
  tenantId: string,
  person: { address: string; name: string },
): Promise<ContactRow> {
  const contact = await repo.findOrCreateContactBySender(db, tenantId, {
    senderId: person.address,
    channel: 'email',
  });
  const name = person.name.trim().slice(0, 200);
  if (!contact.name && name) await repo.nameUnnamedContact(db, tenantId, contact.id, name);
  return contact;
}

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

/** PostgreSQL's unique_violation with the index that refused (sender_id, e-mail or phone). */
function uniqueViolation(error: unknown): string | null {
  if (typeof error !== 'object' || error === null || (error as { code?: unknown }).code !== '23505')
    return null;
  const { constraint, message } = error as { constraint?: unknown; message?: unknown };
  const name = typeof constraint === 'string' ? constraint : '';
  const text = `${name} ${typeof message === 'string' ? message : ''}`;
  if (text.includes('contacts_tenant_email_key')) return 'email';
  if (text.includes('contacts_tenant_phone_key')) return 'phone';
  return 'sender_id';
}

const taken = (field: string) => {
  if (field === 'email') {
    return conflict('Another contact of this tenant already has this e-mail address', {
      code: 'email_taken',
      field: 'email',
    });
  }
  if (field === 'phone') {
    return conflict('Another contact of this tenant already has this phone number', {
      code: 'phone_taken',
      field: 'phone',
    });
  }
  return conflict("Another contact of this tenant already has this 'sender_id'", {
    code: 'sender_taken',
    field: 'sender_id',
  });
};

/** Phone numbers are stored in E.164; one that cannot be read as a phone number is refused. */
function normalizeFields(fields: ContactFields): ContactFields {
  if (typeof fields.phone !== 'string') return fields;
  const phone = normalizePhone(fields.phone);
  if (!phone) {
    throw badRequest(
      "Field 'phone' is not a phone number (write it with its country code, e.g. +49 30 123456)",
      {
        code: 'phone_invalid',
        field: 'phone',
      },
    );
  }
  return { ...fields, phone };
}

export async function createContact(
  db: Database,
  tenantId: string,
  fields: ContactFields,
): Promise<ContactRow> {
  const normalized = normalizeFields(fields);
  try {
    return await insertContact(db, tenantId, normalized);
  } catch (error) {
    const field = uniqueViolation(error);
    if (field) throw taken(field);
    throw error;
  }
}

/**
 * The contact with this e-mail address or phone number, created when there is none (the
 * dashboard's booking form): 201 semantics for `created`. Concurrent calls for the same new
 * address make one contact.
 */
export async function resolveContact(
  db: Database,
  tenantId: string,
  input: { name?: string | null; email?: string | null; phone?: string | null; channel?: string | null },
): Promise<{ contact: ContactRow; created: boolean }> {
  if (!input.email && !input.phone) {
    throw badRequest('Give an e-mail address or a phone number', { code: 'either_field' });
  }
  const phone = normalizeFields({ phone: input.phone ?? null }).phone ?? null;
  return db.transaction((tx) =>
    findOrCreateContactByIdentity(tx, tenantId, {
      name: input.name ?? null,
      email: input.email?.trim() ?? null,
      phone,
      channel: input.channel ?? 'manual',
    }),
  );
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
  const normalized = normalizeFields(fields);
  let contact: ContactRow | undefined;
  try {
    contact = await updateContact(db, tenantId, contactId, normalized);
  } catch (error) {
    const field = uniqueViolation(error);
    if (field) throw taken(field);
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

type SubPageQuery = { limit?: number; cursor?: string };

/**
 * One page of a list that hangs off a contact (bookings, leads), newest first by `cursor_at`;
 * another tenant's contact is 404.
 */
async function contactSubPage<Row extends { cursor_at: string }, Out>(
  db: Database,
  tenantId: string,
  contactId: string,
  query: SubPageQuery,
  source: {
    cursorKind: Parameters<typeof decodeTimeCursor>[0];
    rows: (limit: number, after: ReturnType<typeof decodeTimeCursor>) => Promise<Row[]>;
    idOf: (row: Row) => string;
    serialize: (row: Omit<Row, 'cursor_at'>) => Out;
  },
): Promise<{ data: Out[]; next_cursor: string | null }> {
  await getContact(db, tenantId, contactId);
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const found = await source.rows(limit, decodeTimeCursor(source.cursorKind, query.cursor));
  const page = splitPage(found, limit, (last) =>
    encodeTimeCursor(source.cursorKind, { at: last.cursor_at, id: source.idOf(last) }),
  );
  return {
    data: page.data.map(({ cursor_at: _cursor, ...row }) => source.serialize(row)),
    next_cursor: page.next_cursor,
  };
}

/** The contact's bookings with their events, newest first; another tenant's contact is 404. */
export function listContactBookingsPage(
  db: Database,
  tenantId: string,
  contactId: string,
  query: SubPageQuery,
) {
  return contactSubPage(db, tenantId, contactId, query, {
    cursorKind: CONTACT_BOOKINGS,
    rows: (limit, after) => listBookingsOfContact(db, tenantId, contactId, { limit, after }),
    idOf: (row) => row.id,
    serialize: (row) => ({
      ...row,
      booked_at: row.booked_at?.toISOString() ?? null,
      cancelled_at: row.cancelled_at?.toISOString() ?? null,
      created_at: row.created_at.toISOString(),
    }),
  });
}

/** Conversations linked to the contact by a recorded lead, newest first. */
export function listContactLeadsPage(db: Database, tenantId: string, contactId: string, query: SubPageQuery) {
  return contactSubPage(db, tenantId, contactId, query, {
    cursorKind: CONTACT_LEADS,
    rows: (limit, after) => listLeadsOfContact(db, tenantId, contactId, { limit, after }),
    idOf: (row) => row.conversation_id,
    serialize: (row) => ({
      ...row,
      last_message_at: row.last_message_at?.toISOString() ?? null,
      created_at: row.created_at.toISOString(),
    }),
  });
}

/** The lead's fields as the lead endpoint takes them. */
export type LeadInput = Omit<Static<typeof LeadBody>, 'conversation_id'>;

/**
 * The contact of a conversation's lead, found in this order by the conversation's linked
 * contact, by its sender_id, by e-mail address (case-insensitive), then by phone number;
 * otherwise created. Runs in the caller's transaction.
 */
export async function recordLeadContact(
  tx: Queryable,
  tenantId: string,
  conversation: { sender_id: string | null; channel: string; contact_id: string | null },
  input: LeadInput,
): Promise<{ contact: repo.LeadContact; created: boolean }> {
  const email = input.email ? input.email.trim() : null;
  // The number is stored as given; it finds a contact by its E.164 form (one contact per number).
  const phone = input.phone ? (normalizePhone(input.phone) ?? input.phone) : null;
  if (email) await repo.lockLeadAddress(tx, tenantId, email);
  const existing =
    (conversation.contact_id && (await repo.lockContactWhere(tx, tenantId, 'id', conversation.contact_id))) ||
    (conversation.sender_id &&
      (await repo.lockContactWhere(tx, tenantId, 'sender_id', conversation.sender_id))) ||
    (email && (await repo.lockContactWhere(tx, tenantId, 'email', email))) ||
    (phone && (await repo.lockContactWhere(tx, tenantId, 'phone', phone))) ||
    undefined;
  const fields = [
    input.name ?? null,
    email,
    input.phone ?? null,
    JSON.stringify(input.metadata ?? {}),
  ] as const;
  if (existing) {
    return { contact: await repo.updateLeadContact(tx, tenantId, existing.id, [...fields]), created: false };
  }
  const { created, ...contact } = await repo.insertLeadContact(tx, tenantId, [...fields], {
    senderId: conversation.sender_id,
    channel: conversation.channel,
  });
  return { contact, created };
}

/**
 * The contact of a verified widget visitor, created on first use: by the identity's e-mail
 * address when it has one (as the e-mail channel's sender address finds its person), else by
 * the visitor id as chat sender. A found contact without a name takes the identity's.
 */
export async function contactOfVerifiedVisitor(
  tx: Queryable,
  tenantId: string,
  visitor: { visitorId: string; name: string | null; email: string | null },
): Promise<ContactRow> {
  if (visitor.email) {
    const { contact } = await findOrCreateContactByIdentity(tx, tenantId, {
      name: visitor.name,
      email: visitor.email.trim(),
      phone: null,
      channel: 'widget',
    });
    return contact;
  }
  return repo.findOrCreateContactBySender(tx, tenantId, { senderId: visitor.visitorId, channel: 'widget' });
}
