import type { Database } from '../../db/database.js';
import { badRequest, notFound } from '../../http/errors.js';
import { recordLeadContact, type LeadInput, type LeadContact } from '../contacts/index.js';
import { linkConversationToContact, lockConversationForLead } from './repository.js';
import { enqueueEvent } from '../webhooks/index.js';

export type { LeadContact, LeadInput };

export interface LeadResult {
  contact: LeadContact;
  /** True when a new contact was created, false when an existing one was updated. */
  created: boolean;
  conversationId: string;
}

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
    const conversation = await lockConversationForLead(tx, tenantId, conversationId);
    if (!conversation) throw notFound('Conversation');
    const { contact: stored, created } = await recordLeadContact(tx, tenantId, conversation, input);
    await linkConversationToContact(tx, tenantId, conversation.id, stored.id);
    await enqueueEvent(tx, tenantId, 'lead.generated', {
      conversation_id: conversation.id,
      bot_id: conversation.bot_id,
      created,
      contact: { id: stored.id, name: stored.name, email: stored.email, phone: stored.phone },
    });
    return { contact: stored, created, conversationId: conversation.id };
  });
}
