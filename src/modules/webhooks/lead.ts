import type { Database, Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';
import { badRequest, notFound } from '../../http/errors.js';
import { isUuid } from '../../shared/ids.js';
import { enqueueEvent } from './outbox.js';

export interface LeadInput {
  name?: string | null;
  email?: string | null;
  phone?: string | null;
  metadata?: Record<string, unknown>;
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

export interface LeadResult {
  contact: LeadContact;
  /** True when a new contact was created, false when an existing one was updated. */
  created: boolean;
  conversationId: string;
}

const CONTACT_COLUMNS = 'id, name, email, phone, sender_id, metadata, created_at, updated_at';

/**
 * Records the lead of a conversation as a contact of the tenant. The contact is found, in
 * this order, by the conversation's linked contact, by the conversation's sender_id, then by
 * e-mail address (case-insensitive); otherwise a new contact is created. Given fields replace
 * stored ones, missing fields keep theirs, metadata is merged. The conversation is linked to
 * the contact and `lead.generated` is emitted, all in one transaction.
 */
export async function recordLead(
  db: Database,
  tenantId: string,
  conversationId: string,
  input: LeadInput,
): Promise<LeadResult> {
  if (!input.name && !input.email && !input.phone) {
    throw badRequest('Give at least one of name, email or phone', { code: 'either_field' });
  }
  return db.transaction(async (tx): Promise<LeadResult> => {
    const conversation = isUuid(conversationId)
      ? await queryOne<{
          id: string;
          bot_id: string;
          sender_id: string | null;
          channel: string;
          contact_id: string | null;
        }>(
          tx,
          `SELECT id, bot_id, sender_id, channel, contact_id FROM conversations
           WHERE tenant_id = $1 AND id = $2 FOR UPDATE`,
          [tenantId, conversationId],
        )
      : undefined;
    if (!conversation) throw notFound('Conversation');
    const email = input.email ? input.email.trim() : null;
    if (email) {
      // Two leads with the same address in different conversations must not create two contacts.
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
        `contact:${tenantId}:${email.toLowerCase()}`,
      ]);
    }
    const existing =
      (conversation.contact_id && (await contactWhere(tx, tenantId, 'id = $2', conversation.contact_id))) ||
      (conversation.sender_id &&
        (await contactWhere(tx, tenantId, 'sender_id = $2', conversation.sender_id))) ||
      (email && (await contactWhere(tx, tenantId, 'lower(email) = lower($2)', email))) ||
      undefined;
    const fields = [input.name ?? null, email, input.phone ?? null, JSON.stringify(input.metadata ?? {})];
    let contact: LeadContact & { created: boolean };
    if (existing) {
      contact = (await queryOne<LeadContact & { created: boolean }>(
        tx,
        `UPDATE contacts SET name = coalesce($3, name), email = coalesce($4, email), phone = coalesce($5, phone),
           metadata = metadata || $6::jsonb, updated_at = now()
         WHERE tenant_id = $1 AND id = $2 RETURNING ${CONTACT_COLUMNS}, false AS created`,
        [tenantId, existing.id, ...fields],
      ))!;
    } else {
      // The sender may have become a contact concurrently (booking, another lead): merge into it.
      contact = (await queryOne<LeadContact & { created: boolean }>(
        tx,
        `INSERT INTO contacts (tenant_id, name, email, phone, metadata, sender_id, channel)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7)
         ON CONFLICT (tenant_id, sender_id) WHERE sender_id IS NOT NULL DO UPDATE SET
           name = coalesce(EXCLUDED.name, contacts.name), email = coalesce(EXCLUDED.email, contacts.email),
           phone = coalesce(EXCLUDED.phone, contacts.phone), metadata = contacts.metadata || EXCLUDED.metadata,
           updated_at = now()
         RETURNING ${CONTACT_COLUMNS}, (xmax = 0) AS created`,
        [tenantId, ...fields, conversation.sender_id, conversation.channel],
      ))!;
    }
    await tx.query(
      'UPDATE conversations SET contact_id = $3, updated_at = now() WHERE tenant_id = $1 AND id = $2',
      [tenantId, conversation.id, contact.id],
    );
    const { created, ...stored } = contact;
    await enqueueEvent(tx, tenantId, 'lead.generated', {
      conversation_id: conversation.id,
      bot_id: conversation.bot_id,
      created,
      contact: { id: stored.id, name: stored.name, email: stored.email, phone: stored.phone },
    });
    return { contact: stored, created, conversationId: conversation.id };
  });
}

function contactWhere(tx: Queryable, tenantId: string, condition: string, value: string) {
  return queryOne<{ id: string }>(
    tx,
    `SELECT id FROM contacts WHERE tenant_id = $1 AND ${condition} ORDER BY created_at LIMIT 1 FOR UPDATE`,
    [tenantId, value],
  );
}
