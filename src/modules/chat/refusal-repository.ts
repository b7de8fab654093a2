import type { Queryable } from '../../db/database.js';
import { isUuid } from '../../shared/ids.js';

/** A guard refusal as stored (conversation_refusals). */
export interface RefusalRow {
  id: string;
  conversation_id: string | null;
  channel: string;
  guard: string;
  code: string;
  reason: string;
  message_excerpt: string;
  created_at: Date;
}

export interface NewRefusal {
  tenantId: string;
  /** The conversation the turn named; kept only when it is the tenant's. */
  conversationId: string | null;
  channel: string;
  senderId: string | null;
  guard: string;
  code: string;
  reason: string;
  excerpt: string;
  idempotencyKey: string | null;
}

/**
 * Stores a guard refusal once: the same turn again (same Idempotency-Key) stores nothing.
 * A conversation id that is not the tenant's (or no conversation's) is stored as none. Returns
 * the conversation a new row names (null when it names none or nothing was stored).
 */
export async function insertRefusal(db: Queryable, refusal: NewRefusal): Promise<string | null> {
  const conversationId =
    refusal.conversationId !== null && isUuid(refusal.conversationId) ? refusal.conversationId : null;
  const rows = await db.query<{ conversation_id: string | null }>(
    `INSERT INTO conversation_refusals
       (tenant_id, conversation_id, channel, sender_id, guard, code, reason, message_excerpt, idempotency_key)
     VALUES ($1, (SELECT id FROM conversations WHERE tenant_id = $1 AND id = $2::uuid),
             $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
     RETURNING conversation_id`,
    [
      refusal.tenantId,
      conversationId,
      refusal.channel,
      refusal.senderId,
      refusal.guard,
      refusal.code,
      refusal.reason,
      refusal.excerpt,
      refusal.idempotencyKey,
    ],
  );
  return rows[0]?.conversation_id ?? null;
}

/** The conversation's latest refusals (at most `limit`), oldest first. */
export function listRefusals(db: Queryable, tenantId: string, conversationId: string, limit: number) {
  return db.query<RefusalRow>(
    `SELECT * FROM (
       SELECT id, conversation_id, channel, guard, code, reason, message_excerpt, created_at
       FROM conversation_refusals WHERE tenant_id = $1 AND conversation_id = $2
       ORDER BY created_at DESC, id DESC LIMIT $3
     ) last ORDER BY created_at, id`,
    [tenantId, conversationId, limit],
  );
}

/**
 * The condition of a refusal of the person's own turns, for export and erasure alike: its sender
 * id is theirs, or their e-mail address (trimmed, in any case).
 */
const ofSender = (senderId: string, email: string) =>
  `(sender_id IS NOT NULL AND (sender_id = ${senderId} OR lower(btrim(sender_id)) = lower(btrim(${email}::text))))`;

/**
 * A person's refusals, for their data export: those in their conversations and those of their
 * turns that opened none (by sender id or e-mail address), oldest first.
 */
export function listRefusalsOfPerson(
  db: Queryable,
  tenantId: string,
  person: { senderId: string | null; email: string | null; conversationIds: string[] },
) {
  return db.query<RefusalRow>(
    `SELECT id, conversation_id, channel, guard, code, reason, message_excerpt, created_at
     FROM conversation_refusals
     WHERE tenant_id = $1
       AND (conversation_id = ANY ($2::uuid[]) OR ${ofSender('$3', '$4')})
     ORDER BY created_at, id`,
    [tenantId, person.conversationIds, person.senderId, person.email],
  );
}

/**
 * Deletes the refusals of a person's turns that opened no conversation (those of their
 * conversations go with the conversations), by sender id or e-mail address. Returns how many.
 */
export async function deleteRefusalsOfSender(
  db: Queryable,
  tenantId: string,
  person: { senderId: string | null; email: string | null },
): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `WITH gone AS (DELETE FROM conversation_refusals WHERE tenant_id = $1 AND ${ofSender('$2', '$3')}
       RETURNING 1) SELECT count(*)::int AS n FROM gone`,
    [tenantId, person.senderId, person.email],
  );
  return rows[0]!.n;
}
