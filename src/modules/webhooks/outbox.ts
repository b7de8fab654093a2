import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../db/database.js';
import { enqueue } from '../outbox/service.js';
import type { WebhookEventType } from './event-types.js';

export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './event-types.js';

/** The outbox kind of webhook deliveries. */
export const WEBHOOK_KIND = 'webhook';

/** Queues deliveries of an event to endpoints: an outbox message per delivery, with the same id. */
export async function queueDeliveries(
  tx: Queryable,
  tenantId: string,
  eventId: string | { type: string; data: string },
  endpointIds: string[],
): Promise<string[]> {
  const ids = endpointIds.map(() => randomUUID());
  await enqueue(
    tx,
    tenantId,
    ids.map((id) => ({
      id,
      kind: WEBHOOK_KIND,
      idempotencyKey: `${WEBHOOK_KIND}:${id}`,
      payload: { delivery_id: id },
    })),
  );
  const event =
    typeof eventId === 'string'
      ? `SELECT $4::uuid AS id`
      : `INSERT INTO webhook_events (tenant_id, type, data) VALUES ($1, $4, $5::jsonb) RETURNING id`;
  await tx.query(
    `WITH event AS (${event})
     INSERT INTO webhook_deliveries (id, tenant_id, event_id, endpoint_id)
     SELECT d.id, $1, event.id, d.endpoint_id
     FROM unnest($2::uuid[], $3::uuid[]) AS d(id, endpoint_id) CROSS JOIN event`,
    typeof eventId === 'string'
      ? [tenantId, ids, endpointIds, eventId]
      : [tenantId, ids, endpointIds, eventId.type, eventId.data],
  );
  return ids;
}

/**
 * Records an outbound event in the caller's transaction: one event row and, per active
 * endpoint of the tenant that subscribes to the type, one delivery with its outbox message
 * (same id, send-once key `webhook:<delivery id>`). When the caller's transaction rolls back,
 * the event disappears with the change that caused it; when it commits, the outbox worker
 * sends the deliveries (also after a restart).
 *
 * An event nobody subscribes to is not stored: the delivery log is kept per endpoint.
 * `data` must be JSON-serialisable (Dates become ISO strings).
 */
export async function enqueueEvent(
  tx: Queryable,
  tenantId: string,
  type: WebhookEventType,
  data: object,
): Promise<void> {
  const targets = await tx.query<{ id: string }>(
    'SELECT id FROM webhook_endpoints WHERE tenant_id = $1 AND is_active AND $2 = ANY(event_types)',
    [tenantId, type],
  );
  if (targets.length === 0) return;
  await queueDeliveries(
    tx,
    tenantId,
    { type, data: JSON.stringify(data) },
    targets.map((t) => t.id),
  );
}
