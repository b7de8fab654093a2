import type { Queryable } from '../../db/database.js';
import type { WebhookEventType } from './event-types.js';

export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './event-types.js';

/**
 * Records an outbound event in the caller's transaction: one event row and one pending
 * delivery per active endpoint of the tenant that subscribes to the type. When the caller's
 * transaction rolls back, the event disappears with the change that caused it; when it
 * commits, the delivery worker picks the deliveries up (also after a restart).
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
  await tx.query(
    `WITH targets AS (
       SELECT id FROM webhook_endpoints
       WHERE tenant_id = $1 AND is_active AND $2 = ANY(event_types)
     ), event AS (
       INSERT INTO webhook_events (tenant_id, type, data)
       SELECT $1, $2, $3::jsonb WHERE EXISTS (SELECT 1 FROM targets)
       RETURNING id
     )
     INSERT INTO webhook_deliveries (tenant_id, event_id, endpoint_id)
     SELECT $1, event.id, targets.id FROM event CROSS JOIN targets`,
    [tenantId, type, JSON.stringify(data)],
  );
}
