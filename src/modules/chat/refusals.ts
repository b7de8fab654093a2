/**
 * Guard refusals, stored one way and shown one way. A turn a channel guard refuses
 * (pipeline/guards.ts) is stored once by the engine, in admission, before the refusal goes back
 * to the adapter: tenant, conversation (if the turn named one of the tenant's), channel, sender,
 * guard, code, reason word and the start of the customer's message. Nothing else is stored for
 * such a turn, so it is written on its own; the turn's Idempotency-Key keeps a retried message
 * to one row. The inbox lists them in the conversation's timeline with guardReasonText's words.
 * Adapters keep their own records of the turn (the received mail, the messaging inbound rows).
 */
import type { Queryable } from '../../db/database.js';
import type { GuardRefusal, RefusalReason } from '../../shared/refusal.js';
import { guardReasonText } from './pipeline/guards.js';
import type { InboundMessage } from './pipeline/types.js';
import * as repo from './refusal-repository.js';
import { publishRefusal } from '../conversations/index.js';
import type { AppContext } from '../../shared/context.js';

/** How much of the customer's message a refusal keeps. */
export const REFUSAL_EXCERPT_CHARS = 500;

/** The start of the message, whole characters (an emoji is never cut in half). */
function excerptOf(message: string): string {
  return message.length <= REFUSAL_EXCERPT_CHARS
    ? message
    : [...message].slice(0, REFUSAL_EXCERPT_CHARS).join('');
}

/**
 * Stores a guard's refusal of the inbound turn (once per Idempotency-Key); a new one in a
 * conversation is announced to the tenant's open inboxes (`refusal` {conversation_id}).
 */
export async function recordGuardRefusal(
  ctx: Pick<AppContext, 'db' | 'coordination'>,
  inbound: InboundMessage,
  code: RefusalReason,
  guard: GuardRefusal,
): Promise<void> {
  const conversationId = await repo.insertRefusal(ctx.db, {
    tenantId: inbound.tenantId,
    conversationId: inbound.input.conversationId ?? null,
    channel: inbound.input.channel,
    senderId: inbound.input.senderId,
    guard: guard.guard,
    code,
    reason: guard.reason,
    excerpt: excerptOf(inbound.input.message),
    idempotencyKey: inbound.idempotencyKey,
  });
  if (conversationId) await publishRefusal(ctx, inbound.tenantId, conversationId);
}

/** The conversation's refusals as the API shows them (oldest first). */
export async function conversationRefusals(
  db: Queryable,
  tenantId: string,
  conversationId: string,
  limit: number,
) {
  const rows = await repo.listRefusals(db, tenantId, conversationId, limit);
  return rows.map((r) => ({
    id: r.id,
    channel: r.channel,
    guard: r.guard,
    code: r.code,
    reason: r.reason,
    text: guardReasonText(r.reason, 'de') ?? `nicht beantwortet (${r.reason})`,
    message_excerpt: r.message_excerpt,
    created_at: r.created_at.toISOString(),
  }));
}

/** A person's refusals as their data export lists them (see listRefusalsOfPerson). */
export async function refusalsOfPerson(
  db: Queryable,
  tenantId: string,
  person: { senderId: string | null; email: string | null; conversationIds: string[] },
): Promise<Record<string, unknown>[]> {
  const rows = await repo.listRefusalsOfPerson(db, tenantId, person);
  return rows.map((r) => ({ ...r, created_at: r.created_at.toISOString() }));
}

/** An erased person's refusals outside conversations (their conversations' go with them). */
export function forgetRefusalsOfPerson(
  db: Queryable,
  tenantId: string,
  person: { senderId: string | null; email: string | null },
): Promise<number> {
  return repo.deleteRefusalsOfSender(db, tenantId, person);
}
