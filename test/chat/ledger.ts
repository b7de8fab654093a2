import type { Queryable } from '../../src/db/database.js';
import { waitFor } from '../helpers/net.js';

/** What a tenant's chat left behind: the quota counter against what is stored and held. */
export interface Ledger {
  /** usage_counters.messages_used of the current month. */
  counter: number;
  /** Stored exchanges (question + answer pairs). */
  exchanges: number;
  /** Quota reservations still held. */
  reservations: number;
  /** Idempotency keys still claimed by a request in flight. */
  inFlightKeys: number;
}

export async function ledgerOf(db: Queryable, tenantId: string): Promise<Ledger> {
  const [row] = await db.query<Ledger>(
    `SELECT
       (SELECT coalesce(sum(messages_used), 0)::int FROM usage_counters WHERE tenant_id = $1) AS counter,
       (SELECT count(*)::int FROM messages WHERE tenant_id = $1 AND role = 'user') AS exchanges,
       (SELECT count(*)::int FROM chat_reservations WHERE tenant_id = $1) AS reservations,
       (SELECT count(*)::int FROM chat_idempotency_keys WHERE tenant_id = $1 AND status = 'in_flight')
         AS "inFlightKeys"`,
    [tenantId],
  );
  return row!;
}

/** Nothing held, and the counter equals the stored exchanges. */
export function settled(exchanges: number): Ledger {
  return { counter: exchanges, exchanges, reservations: 0, inFlightKeys: 0 };
}

/** Polls until `check` passes (releases may finish just after the response); the last value read. */
export async function eventually<T>(
  read: () => Promise<T>,
  check: (value: T) => boolean,
  ms = 3000,
): Promise<T> {
  let value = await read();
  if (check(value)) return value;
  // On a timeout the last value is returned: the caller's assertion says what is wrong.
  await waitFor(async () => check((value = await read())), ms, 'the ledger to settle', 50).catch(
    () => undefined,
  );
  return value;
}
