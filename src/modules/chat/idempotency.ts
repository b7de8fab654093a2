import { createHash } from 'node:crypto';
import type { Queryable } from '../../db/database.js';
import * as repo from './idempotency-repository.js';
import type { ChatInput } from './request.js';

/** How long a completed response is replayed for the same key. */
export const IDEMPOTENCY_TTL_HOURS = 24;

export type IdempotencyClaim =
  | { kind: 'claimed' }
  | { kind: 'replay'; response: Record<string, unknown> }
  | { kind: 'mismatch' }
  | { kind: 'in_flight' };

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** Fingerprint of what the request asks for: same key + different fingerprint → 422. */
export function requestFingerprint(botId: string, input: ChatInput): string {
  const normalized = canonical({ botId: botId.toLowerCase(), ...input });
  return createHash('sha256').update(JSON.stringify(normalized)).digest('hex');
}

/**
 * Claims the key for this request, or tells what happened to it before. Settled by the
 * primary key: of several concurrent first requests exactly one inserts the row. An expired
 * record (after 24 h), or an in-flight claim whose lease ran out (its process died), is
 * taken over by a conditional UPDATE.
 */
export async function claimIdempotencyKey(
  db: Queryable,
  tenantId: string,
  input: {
    key: string;
    requestHash: string;
    leaseSeconds: number;
    claimId: string;
    /** When the caller stops waiting for the statement (see `admitChat`). */
    validUntil: Date;
  },
): Promise<IdempotencyClaim> {
  const claim = { ...input, ttlHours: IDEMPOTENCY_TTL_HOURS };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await repo.insertClaim(db, tenantId, claim)) return { kind: 'claimed' };
    if (await repo.takeOverClaim(db, tenantId, claim)) return { kind: 'claimed' };
    const row = await repo.findIdempotencyKey(db, tenantId, input.key);
    // Gone in between (the first request failed and released it): try to claim again.
    if (!row) continue;
    if (row.request_hash !== input.requestHash) return { kind: 'mismatch' };
    if (row.status === 'in_flight' || !row.response) return { kind: 'in_flight' };
    return { kind: 'replay', response: row.response };
  }
  return { kind: 'in_flight' };
}

/**
 * A request that ended in an error keeps nothing: the client may retry with the same key.
 * Only this request's own claim is deleted, so a release retried after an outage never
 * removes a claim another request has taken over since.
 */
export async function releaseIdempotencyKey(
  db: Queryable,
  tenantId: string,
  key: string,
  claimId: string,
): Promise<void> {
  await repo.deleteClaim(db, tenantId, key, claimId);
}

/** Removes the tenant's expired records (called now and then, off the request's path). */
export async function purgeExpiredIdempotencyKeys(db: Queryable, tenantId: string): Promise<void> {
  await repo.deleteExpiredKeys(db, tenantId);
}
