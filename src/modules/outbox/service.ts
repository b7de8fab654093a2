/**
 * What other modules use of the outbox: queue messages in their own transaction, read a
 * message's attempt log. The worker (worker.ts) and the dead-letter routes do the rest.
 */
import type { Queryable } from '../../db/database.js';
import { timePage } from '../../shared/pagination.js';
import { listDead } from './repository.js';

const DEAD_LIST = 'outbox_dead';

/** One page of the tenant's dead messages, newest first, optionally of one kind. */
export function listDeadPage(
  db: Queryable,
  tenantId: string,
  query: { limit?: number; cursor?: string; kind?: string },
) {
  return timePage(DEAD_LIST, query, (limit, before) =>
    listDead(db, tenantId, { limit: limit + 1, kind: query.kind, before }),
  );
}
