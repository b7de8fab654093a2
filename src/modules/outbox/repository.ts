import type { Database, Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';
import { isUuid } from '../../shared/ids.js';

export type OutboxStatus = 'pending' | 'sending' | 'sent' | 'retry' | 'dead';

export interface OutboxMessage<P = unknown> {
  id: string;
  tenant_id: string;
  kind: string;
  idempotency_key: string;
  payload: P;
  status: OutboxStatus;
  attempts: number;
  round_start: number;
  next_attempt_at: Date;
  locked_until: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  sent_at: Date | null;
  dead_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewMessage {
  kind: string;
  /** Send-once key, unique over the whole outbox; include the tenant or a unique id in it. */
  idempotencyKey: string;
  payload: object;
  /** Fixed id (a webhook delivery shares its id with its message); generated when absent. */
  id?: string;
  notBefore?: Date;
}

/**
 * Queues messages in the caller's transaction: rolled back with it, sent after it commits.
 * A key that is already queued is not queued again. Returns the ids of the new messages.
 */
export async function enqueue(tx: Queryable, tenantId: string, messages: NewMessage[]): Promise<string[]> {
  if (messages.length === 0) return [];
  const rows = await tx.query<{ id: string }>(
    `INSERT INTO outbox_messages (id, tenant_id, kind, idempotency_key, payload, next_attempt_at)
     SELECT coalesce(m.id, gen_random_uuid()), $1, m.kind, m.key, m.payload, coalesce(m.not_before, now())
     FROM jsonb_to_recordset($2::jsonb)
       AS m(id uuid, kind text, key text, payload jsonb, not_before timestamptz)
     ON CONFLICT (idempotency_key) DO NOTHING
     RETURNING id`,
    [
      tenantId,
      JSON.stringify(
        messages.map((m) => ({
          id: m.id ?? null,
          kind: m.kind,
          key: m.idempotencyKey,
          payload: m.payload,
          not_before: m.notBefore?.toISOString() ?? null,
        })),
      ),
    ],
  );
  return rows.map((r) => r.id);
}

/**
 * Claims due messages of the given kinds: pending and retry ones whose time has come, and
 * sending ones whose worker's lease ran out (a crashed or stopped instance). SKIP LOCKED lets
 * several workers claim side by side without waiting for or taking each other's rows; the
 * claim itself (status `sending` until `locked_until`) keeps them apart afterwards.
 */
export function claimDue(
  db: Queryable,
  options: { kinds: string[]; now: Date; leaseUntil: Date; limit: number },
): Promise<OutboxMessage[]> {
  return db.query<OutboxMessage>(
    `UPDATE outbox_messages m
     SET status = 'sending', attempts = m.attempts + 1, locked_until = $3, updated_at = now()
     FROM (
       SELECT id FROM outbox_messages
       WHERE kind = ANY($1::text[])
         AND ((status IN ('pending', 'retry') AND next_attempt_at <= $2)
           OR (status = 'sending' AND locked_until <= $2))
       ORDER BY next_attempt_at
       LIMIT $4
       FOR UPDATE SKIP LOCKED
     ) due
     WHERE m.id = due.id
     RETURNING m.*`,
    [options.kinds, options.now, options.leaseUntil, options.limit],
  );
}

export interface AttemptRecord {
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  durationMs: number;
}

export type Settlement =
  | { status: 'sent' }
  | { status: 'retry'; nextAttemptAt: Date }
  | { status: 'dead'; reason: string | null }
  /** Back to waiting without counting the attempt (the sender held it). */
  | { status: 'held'; nextAttemptAt: Date };

/**
 * Stores one attempt and the message's next state in one transaction, with the sender's own
 * follow-up (`also`). Applies only while this worker still holds the claim it made (status and
 * attempt number unchanged); a worker whose lease ran out and was overtaken records nothing.
 */
export function settle(
  db: Database,
  message: Pick<OutboxMessage, 'id' | 'tenant_id' | 'attempts'>,
  attempt: AttemptRecord,
  settlement: Settlement,
  also?: (tx: Queryable) => Promise<void>,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const held = settlement.status === 'held';
    const error = (settlement.status === 'dead' && settlement.reason) || attempt.error;
    const updated = await tx.query(
      `UPDATE outbox_messages
       SET status = $3::text, locked_until = NULL, updated_at = now(),
           attempts = CASE WHEN $7 THEN attempts - 1 ELSE attempts END,
           last_status_code = CASE WHEN $7 THEN last_status_code ELSE $4 END,
           last_error = CASE WHEN $7 THEN last_error ELSE $5 END,
           next_attempt_at = coalesce($6::timestamptz, next_attempt_at),
           sent_at = CASE WHEN $3::text = 'sent' THEN now() ELSE sent_at END,
           dead_at = CASE WHEN $3::text = 'dead' THEN now() ELSE NULL END
       WHERE id = $1 AND status = 'sending' AND attempts = $2
       RETURNING id`,
      [
        message.id,
        message.attempts,
        held ? (message.attempts > 1 ? 'retry' : 'pending') : settlement.status,
        attempt.statusCode,
        error?.slice(0, 500) ?? null,
        settlement.status === 'retry' || settlement.status === 'held' ? settlement.nextAttemptAt : null,
        held,
      ],
    );
    if (updated.length === 0) return false;
    if (!held) {
      await tx.query(
        `INSERT INTO outbox_attempts
           (tenant_id, message_id, attempt_number, status_code, error, response_body, duration_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (message_id, attempt_number) DO NOTHING`,
        [
          message.tenant_id,
          message.id,
          message.attempts,
          attempt.statusCode,
          attempt.error?.slice(0, 500) ?? null,
          attempt.responseBody?.slice(0, 1000) ?? null,
          Math.round(attempt.durationMs),
        ],
      );
    }
    await also?.(tx);
    return true;
  });
}

export interface AttemptRow {
  attempt_number: number;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
  duration_ms: number;
  created_at: Date;
}

export function listAttempts(db: Queryable, tenantId: string, messageId: string): Promise<AttemptRow[]> {
  return db.query<AttemptRow>(
    `SELECT attempt_number, status_code, error, response_body, duration_ms, created_at
     FROM outbox_attempts WHERE tenant_id = $1 AND message_id = $2 ORDER BY attempt_number`,
    [tenantId, messageId],
  );
}

/** Dead messages of a tenant, newest first; `before` is the (dead_at, id) of the previous page's last row. */
export function listDead(
  db: Queryable,
  tenantId: string,
  options: { limit: number; kind?: string; before?: { at: string; id: string } },
): Promise<(OutboxMessage & { cursor_at: string })[]> {
  return db.query(
    `SELECT *, to_char(dead_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at
     FROM outbox_messages
     WHERE tenant_id = $1 AND status = 'dead' AND ($2::text IS NULL OR kind = $2)
       AND ($3::timestamptz IS NULL OR (dead_at, id) < ($3::timestamptz, $4::uuid))
     ORDER BY dead_at DESC, id DESC LIMIT $5`,
    [tenantId, options.kind ?? null, options.before?.at ?? null, options.before?.id ?? null, options.limit],
  );
}

export function findMessage(db: Queryable, tenantId: string, id: string): Promise<OutboxMessage | undefined> {
  if (!isUuid(id)) return Promise.resolve(undefined);
  return queryOne<OutboxMessage>(db, 'SELECT * FROM outbox_messages WHERE tenant_id = $1 AND id = $2', [
    tenantId,
    id,
  ]);
}

/**
 * "Send again": a dead message goes back to the queue with a new round of attempts, keeping
 * its id, send-once key and attempt log. Undefined when the message is not dead (any more).
 */
export function resend(db: Queryable, tenantId: string, id: string): Promise<OutboxMessage | undefined> {
  if (!isUuid(id)) return Promise.resolve(undefined);
  return queryOne<OutboxMessage>(
    db,
    `UPDATE outbox_messages
     SET status = 'retry', round_start = attempts, next_attempt_at = now(), dead_at = NULL, updated_at = now()
     WHERE tenant_id = $1 AND id = $2 AND status = 'dead'
     RETURNING *`,
    [tenantId, id],
  );
}

/** Drops messages of the tenant (and, by their foreign keys, what refers to them); sent or not. */
export async function deleteMessages(tx: Queryable, tenantId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.query('DELETE FROM outbox_messages WHERE tenant_id = $1 AND id = ANY($2::uuid[])', [
    tenantId,
    ids,
  ]);
}
