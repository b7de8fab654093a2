import { queryOne, type Queryable } from '../../db/database.js';

/** The statements of the Idempotency-Key records (table chat_idempotency_keys). */

export interface IdempotencyKeyRow {
  status: 'in_flight' | 'completed';
  request_hash: string;
  response: Record<string, unknown> | null;
}

/** What a claim writes; `validUntil` is when the caller stops waiting for the statement. */
export interface ClaimParams {
  key: string;
  requestHash: string;
  leaseSeconds: number;
  ttlHours: number;
  claimId: string;
  validUntil: Date;
}

function claimParams(tenantId: string, claim: ClaimParams): unknown[] {
  return [
    tenantId,
    claim.key,
    claim.requestHash,
    claim.leaseSeconds,
    claim.ttlHours,
    claim.claimId,
    claim.validUntil,
  ];
}

/** Inserts the in-flight claim unless a record of the key exists; true when inserted. */
export async function insertClaim(db: Queryable, tenantId: string, claim: ClaimParams): Promise<boolean> {
  const inserted = await db.query(
    `INSERT INTO chat_idempotency_keys
         (tenant_id, idempotency_key, request_hash, lease_expires_at, expires_at, claim_id)
       SELECT $1, $2, $3, now() + make_interval(secs => $4), now() + make_interval(hours => $5), $6
       WHERE clock_timestamp() <= $7
       ON CONFLICT (tenant_id, idempotency_key) DO NOTHING
       RETURNING 1`,
    claimParams(tenantId, claim),
  );
  return inserted.length > 0;
}

/**
 * Takes over an expired record, or an in-flight claim of the same request whose lease ran
 * out; true when taken over.
 */
export async function takeOverClaim(db: Queryable, tenantId: string, claim: ClaimParams): Promise<boolean> {
  const takenOver = await db.query(
    `UPDATE chat_idempotency_keys
       SET request_hash = $3, status = 'in_flight', response = NULL, created_at = now(), claim_id = $6,
           lease_expires_at = now() + make_interval(secs => $4), expires_at = now() + make_interval(hours => $5)
       WHERE tenant_id = $1 AND idempotency_key = $2 AND clock_timestamp() <= $7
         AND (expires_at <= now() OR (status = 'in_flight' AND lease_expires_at <= now() AND request_hash = $3))
       RETURNING 1`,
    claimParams(tenantId, claim),
  );
  return takenOver.length > 0;
}

export function findIdempotencyKey(
  db: Queryable,
  tenantId: string,
  key: string,
): Promise<IdempotencyKeyRow | undefined> {
  return queryOne<IdempotencyKeyRow>(
    db,
    `SELECT status, request_hash, response FROM chat_idempotency_keys
       WHERE tenant_id = $1 AND idempotency_key = $2`,
    [tenantId, key],
  );
}

/** Deletes this claim while it is in flight (never a claim another request has taken over). */
export async function deleteClaim(
  db: Queryable,
  tenantId: string,
  key: string,
  claimId: string,
): Promise<void> {
  await db.query(
    `DELETE FROM chat_idempotency_keys
     WHERE tenant_id = $1 AND idempotency_key = $2 AND status = 'in_flight' AND claim_id = $3`,
    [tenantId, key, claimId],
  );
}

export async function deleteExpiredKeys(db: Queryable, tenantId: string): Promise<void> {
  await db.query('DELETE FROM chat_idempotency_keys WHERE tenant_id = $1 AND expires_at <= now()', [
    tenantId,
  ]);
}
