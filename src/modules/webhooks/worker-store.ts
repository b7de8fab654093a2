import type { Database, Queryable } from '../../db/database.js';

/**
 * SQL of the delivery worker. Unlike the tenant-scoped repositories these statements work
 * across tenants: the worker serves every tenant's queue.
 */
export interface ClaimedDelivery {
  id: string;
  tenant_id: string;
  endpoint_id: string;
  event_id: string;
  attempts: number;
  event_type: string;
  data: unknown;
  event_created_at: Date;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

/**
 * Claims due deliveries of active endpoints: pending ones whose time has come, and claimed
 * ones whose worker's lease ran out (a crashed or stopped instance). SKIP LOCKED lets
 * several workers claim side by side without waiting for or taking each other's rows; the
 * claim itself (status `delivering` until `locked_until`) keeps them apart afterwards.
 */
export async function claimDueDeliveries(
  db: Queryable,
  options: { now: Date; leaseUntil: Date; limit: number },
): Promise<ClaimedDelivery[]> {
  const claimed = await db.query<{ id: string }>(
    `UPDATE webhook_deliveries d
     SET status = 'delivering', attempts = d.attempts + 1, locked_until = $2, updated_at = now()
     FROM (
       SELECT d2.id FROM webhook_deliveries d2
       JOIN webhook_endpoints w ON w.id = d2.endpoint_id
       WHERE w.is_active AND d2.status IN ('pending', 'delivering')
         AND ((d2.status = 'pending' AND d2.next_attempt_at <= $1)
           OR (d2.status = 'delivering' AND d2.locked_until <= $1))
       ORDER BY d2.next_attempt_at
       LIMIT $3
       FOR UPDATE OF d2 SKIP LOCKED
     ) due
     WHERE d.id = due.id
     RETURNING d.id`,
    [options.now, options.leaseUntil, options.limit],
  );
  if (claimed.length === 0) return [];
  return db.query<ClaimedDelivery>(
    `SELECT d.id, d.tenant_id, d.endpoint_id, d.event_id, d.attempts, e.type AS event_type, e.data,
            e.created_at AS event_created_at, w.url, w.secret, w.previous_secret, w.previous_secret_expires_at
     FROM webhook_deliveries d
     JOIN webhook_events e ON e.id = d.event_id
     JOIN webhook_endpoints w ON w.id = d.endpoint_id
     WHERE d.id = ANY($1::uuid[])`,
    [claimed.map((c) => c.id)],
  );
}

export interface AttemptRecord {
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  durationMs: number;
}

export type DeliveryResolution =
  | { status: 'succeeded' }
  | { status: 'pending'; nextAttemptAt: Date }
  | { status: 'failed'; disableEndpoint?: string };

/**
 * Stores one attempt and the delivery's next state in one transaction. The update only
 * applies while this worker still holds the claim it made (status and attempt number
 * unchanged); a worker whose lease ran out and was overtaken records nothing.
 */
export function recordAttempt(
  db: Database,
  delivery: Pick<ClaimedDelivery, 'id' | 'tenant_id' | 'endpoint_id' | 'attempts'>,
  attempt: AttemptRecord,
  resolution: DeliveryResolution,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const error = attempt.error?.slice(0, 500) ?? null;
    const updated = await tx.query(
      `UPDATE webhook_deliveries
       SET status = $3::text, last_status_code = $4, last_error = $5, locked_until = NULL, updated_at = now(),
           next_attempt_at = coalesce($6::timestamptz, next_attempt_at),
           delivered_at = CASE WHEN $3::text = 'succeeded' THEN now() ELSE delivered_at END
       WHERE id = $1 AND status = 'delivering' AND attempts = $2
       RETURNING id`,
      [
        delivery.id,
        delivery.attempts,
        resolution.status,
        attempt.statusCode,
        error,
        resolution.status === 'pending' ? resolution.nextAttemptAt : null,
      ],
    );
    if (updated.length === 0) return false;
    await tx.query(
      `INSERT INTO webhook_delivery_attempts
         (tenant_id, delivery_id, attempt_number, status_code, error, response_body, duration_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (delivery_id, attempt_number) DO NOTHING`,
      [
        delivery.tenant_id,
        delivery.id,
        delivery.attempts,
        attempt.statusCode,
        error,
        attempt.responseBody?.slice(0, 1000) ?? null,
        Math.round(attempt.durationMs),
      ],
    );
    if (resolution.status === 'failed' && resolution.disableEndpoint) {
      await tx.query(
        `UPDATE webhook_endpoints SET is_active = false, disabled_reason = $3, disabled_at = now(), updated_at = now()
         WHERE tenant_id = $1 AND id = $2`,
        [delivery.tenant_id, delivery.endpoint_id, resolution.disableEndpoint],
      );
    }
    return true;
  });
}
