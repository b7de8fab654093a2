import type { AppContext } from '../../shared/context.js';
import type { Database, Queryable } from '../../db/database.js';
import { conflict, notFound } from '../../http/errors.js';
import { enqueueEvent } from '../webhooks/index.js';
import type { HandoverReason } from './handover.js';
import * as repo from './repository.js';
import type { ConversationRow, LifecycleConversation } from './repository.js';

/**
 * Conversation lifecycle: end, hand over to a human (escalation), reopen, rate, record the
 * lead's contact data, and end conversations that went quiet. Every change and the outbound
 * event it causes are written in one transaction.
 *
 * States: `active` → `ended` (end, inactivity) or `handed_over` (escalation);
 * `handed_over` → `ended` (end); `ended`/`handed_over` → `active` (reopen).
 */
export type ConversationStatus = ConversationRow['status'];

export interface TransitionResult {
  conversation: LifecycleConversation;
  /** False when the conversation already was in the requested state (nothing written, no event). */
  changed: boolean;
}

async function lockedOrNotFound(tx: Queryable, tenantId: string, id: string) {
  const conversation = await repo.lockLifecycleConversation(tx, tenantId, id);
  if (!conversation) throw notFound('Conversation');
  return conversation;
}

/** Ends an active or handed-over conversation; ending an ended one changes nothing. */
export function endConversation(
  db: Database,
  tenantId: string,
  id: string,
  input: { reason?: string | null } = {},
): Promise<TransitionResult> {
  return db.transaction(async (tx) => {
    const current = await lockedOrNotFound(tx, tenantId, id);
    if (current.status === 'ended') return { conversation: current, changed: false };
    const conversation = await repo.markEnded(tx, tenantId, id, input.reason ?? null);
    await enqueueEvent(tx, tenantId, 'conversation.ended', endedEventData(conversation, 'api'));
    return { conversation, changed: true };
  });
}

function endedEventData(conversation: LifecycleConversation, trigger: 'api' | 'inactivity') {
  return {
    conversation_id: conversation.id,
    bot_id: conversation.bot_id,
    trigger,
    reason: conversation.end_reason,
    message_count: conversation.message_count,
    ended_at: conversation.ended_at,
  };
}

/** Hands an active conversation over to a human; the bot stays silent until it is reopened. */
export function escalateConversation(
  db: Database,
  tenantId: string,
  id: string,
  input: { reason?: string | null; handover?: { reason: HandoverReason; question?: string | null } } = {},
): Promise<TransitionResult> {
  return db.transaction(async (tx) => {
    const current = await lockedOrNotFound(tx, tenantId, id);
    if (current.status === 'handed_over') return { conversation: current, changed: false };
    if (current.status === 'ended') {
      throw conflict('Conversation has ended; reopen it before handing it over', {
        code: 'conversation_ended',
      });
    }
    const conversation = await repo.markHandedOver(tx, tenantId, id, {
      reason: input.reason ?? null,
      handoverReason: input.handover?.reason ?? 'api',
      question: input.handover?.question ?? null,
    });
    await enqueueEvent(tx, tenantId, 'escalation.triggered', {
      conversation_id: conversation.id,
      bot_id: conversation.bot_id,
      reason: conversation.escalation_reason,
      escalated_at: conversation.escalated_at,
    });
    return { conversation, changed: true };
  });
}

/** Makes an ended or handed-over conversation active again; the inactivity clock restarts. */
export function reopenConversation(db: Database, tenantId: string, id: string): Promise<TransitionResult> {
  return db.transaction(async (tx) => {
    const current = await lockedOrNotFound(tx, tenantId, id);
    if (current.status === 'active') return { conversation: current, changed: false };
    const conversation = await repo.markReopened(tx, tenantId, id);
    return { conversation, changed: true };
  });
}

/** Stores the 1–5 rating; a later rating replaces the earlier one and is reported again. */
export function rateConversation(
  db: Database,
  tenantId: string,
  id: string,
  input: { rating: number; comment?: string | null },
): Promise<TransitionResult> {
  return db.transaction(async (tx) => {
    await lockedOrNotFound(tx, tenantId, id);
    const conversation = await repo.storeRating(tx, tenantId, id, input.rating, input.comment ?? null);
    await enqueueEvent(tx, tenantId, 'satisfaction.rated', {
      conversation_id: conversation.id,
      bot_id: conversation.bot_id,
      rating: conversation.rating,
      comment: conversation.rating_comment,
      rated_at: conversation.rated_at,
    });
    return { conversation, changed: true };
  });
}

export const INACTIVITY_BATCH = 200;

/** One pass of the inactivity sweep: conversations quiet for the configured time are ended. */
export async function sweepInactiveConversations(
  ctx: Pick<AppContext, 'db' | 'config'>,
  now: Date = new Date(),
): Promise<{ ended: number; full: boolean }> {
  const before = new Date(now.getTime() - ctx.config.conversations.inactivityMinutes * 60_000);
  const ended = await endInactiveConversations(ctx.db, { before, limit: INACTIVITY_BATCH });
  return { ended, full: ended === INACTIVITY_BATCH };
}

/**
 * Ends active conversations whose last activity (last message, creation or reopening) lies
 * before `before`, in batches; each ending emits `conversation.ended` in the same
 * transaction. SKIP LOCKED keeps several instances from sweeping the same rows.
 */
export function endInactiveConversations(
  db: Database,
  options: { before: Date; limit: number },
): Promise<number> {
  return db.transaction(async (tx) => {
    const ended = await repo.endQuietConversations(tx, options.before, options.limit);
    for (const conversation of ended) {
      await enqueueEvent(
        tx,
        conversation.tenant_id,
        'conversation.ended',
        endedEventData(conversation, 'inactivity'),
      );
    }
    return ended.length;
  });
}

const iso = (value: Date | null): string | null => (value ? value.toISOString() : null);

/** A conversation as the lifecycle webhooks answer it. */
export function serializeLifecycleConversation(conversation: LifecycleConversation) {
  return {
    id: conversation.id,
    bot_id: conversation.bot_id,
    status: conversation.status,
    ended_at: iso(conversation.ended_at),
    end_reason: conversation.end_reason,
    escalated_at: iso(conversation.escalated_at),
    escalation_reason: conversation.escalation_reason,
    rating: conversation.rating,
    rating_comment: conversation.rating_comment,
    rated_at: iso(conversation.rated_at),
    contact_id: conversation.contact_id,
    updated_at: conversation.updated_at.toISOString(),
  };
}
