import type { Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';
import { cursorTimestampSql, type TimeCursor } from '../../shared/pagination.js';
import { isUuid } from '../../shared/ids.js';
import { queueDeliveries } from './outbox.js';

export interface EndpointRow {
  id: string;
  tenant_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  is_active: boolean;
  /** Storage form (see SecretBox); never leaves the service. */
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  disabled_reason: string | null;
  disabled_at: Date | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface DeliveryRow {
  id: string;
  tenant_id: string;
  event_id: string;
  endpoint_id: string;
  event_type: string;
  status: 'pending' | 'delivering' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: Date;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  created_at: Date;
  updated_at: Date;
  /** created_at with full (microsecond) precision, for exact paging. */
  cursor_at: string;
}

export async function insertEndpoint(
  db: Queryable,
  tenantId: string,
  input: {
    url: string;
    description: string | null;
    eventTypes: string[];
    isActive: boolean;
    sealedSecret: string;
    createdBy: string | null;
  },
): Promise<EndpointRow> {
  return (await queryOne<EndpointRow>(
    db,
    `INSERT INTO webhook_endpoints (tenant_id, url, description, event_types, is_active, secret, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [
      tenantId,
      input.url,
      input.description,
      input.eventTypes,
      input.isActive,
      input.sealedSecret,
      input.createdBy,
    ],
  ))!;
}

/** The tenant's endpoints, newest first, from a cursor position on. */
export function listEndpoints(
  db: Queryable,
  tenantId: string,
  page: { limit: number; after?: TimeCursor },
): Promise<(EndpointRow & { cursor_at: string })[]> {
  return db.query(
    `SELECT *, ${cursorTimestampSql('created_at')} AS cursor_at FROM webhook_endpoints
     WHERE tenant_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
     ORDER BY created_at DESC, id DESC LIMIT $4`,
    [tenantId, page.after?.at ?? null, page.after?.id ?? null, page.limit],
  );
}

export function findEndpoint(db: Queryable, tenantId: string, id: string): Promise<EndpointRow | undefined> {
  if (!isUuid(id)) return Promise.resolve(undefined);
  return queryOne<EndpointRow>(db, 'SELECT * FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2', [
    tenantId,
    id,
  ]);
}

export interface EndpointChanges {
  url?: string;
  description?: string | null;
  eventTypes?: string[];
  isActive?: boolean;
}

/** Applies the changes; switching an endpoint on or off by hand clears an automatic disable reason. */
export function updateEndpoint(
  db: Queryable,
  tenantId: string,
  id: string,
  changes: EndpointChanges,
): Promise<EndpointRow | undefined> {
  if (!isUuid(id)) return Promise.resolve(undefined);
  const sets: string[] = [];
  const params: unknown[] = [tenantId, id];
  const set = (column: string, value: unknown) => {
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  };
  if (changes.url !== undefined) set('url', changes.url);
  if (changes.description !== undefined) set('description', changes.description);
  if (changes.eventTypes !== undefined) set('event_types', changes.eventTypes);
  if (changes.isActive !== undefined) {
    set('is_active', changes.isActive);
    sets.push('disabled_reason = NULL', 'disabled_at = NULL');
  }
  sets.push('updated_at = now()');
  return queryOne<EndpointRow>(
    db,
    `UPDATE webhook_endpoints SET ${sets.join(', ')} WHERE tenant_id = $1 AND id = $2 RETURNING *`,
    params,
  );
}

export async function deleteEndpoint(db: Queryable, tenantId: string, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  // The deliveries' outbox messages go with it (and take the deliveries and attempts along).
  const rows = await db.query(
    `WITH messages AS (
       DELETE FROM outbox_messages
       WHERE tenant_id = $1 AND id IN (SELECT id FROM webhook_deliveries WHERE tenant_id = $1 AND endpoint_id = $2)
     )
     DELETE FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2 RETURNING id`,
    [tenantId, id],
  );
  return rows.length > 0;
}

/** The current secret becomes the previous one, still signing until `graceUntil`. */
export function rotateEndpointSecret(
  db: Queryable,
  tenantId: string,
  id: string,
  sealedSecret: string,
  graceUntil: Date,
): Promise<EndpointRow | undefined> {
  if (!isUuid(id)) return Promise.resolve(undefined);
  return queryOne<EndpointRow>(
    db,
    `UPDATE webhook_endpoints
     SET previous_secret = secret, previous_secret_expires_at = $4, secret = $3, updated_at = now()
     WHERE tenant_id = $1 AND id = $2 RETURNING *`,
    [tenantId, id, sealedSecret, graceUntil],
  );
}

const DELIVERY_COLUMNS = `d.id, d.tenant_id, d.event_id, d.endpoint_id, e.type AS event_type, d.status, d.attempts,
  d.next_attempt_at, d.last_status_code, d.last_error, d.delivered_at, d.created_at, d.updated_at,
  to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at`;

/** Deliveries with their outbox state in webhook terms (the view of migration 0024). */
const DELIVERY_TABLES = 'webhook_delivery_log d JOIN webhook_events e ON e.id = d.event_id';

/** Newest first; `before` is the (created_at, id) of the last row of the previous page. */
export function listDeliveries(
  db: Queryable,
  tenantId: string,
  endpointId: string,
  options: { limit: number; status?: string; before?: { at: string; id: string } },
): Promise<DeliveryRow[]> {
  const params: unknown[] = [tenantId, endpointId, options.limit];
  const filters: string[] = [];
  if (options.status) {
    params.push(options.status);
    filters.push(`AND d.status = $${params.length}`);
  }
  if (options.before) {
    params.push(options.before.at, options.before.id);
    filters.push(`AND (d.created_at, d.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  return db.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM ${DELIVERY_TABLES}
     WHERE d.tenant_id = $1 AND d.endpoint_id = $2 ${filters.join(' ')}
     ORDER BY d.created_at DESC, d.id DESC LIMIT $3`,
    params,
  );
}

export function findDelivery(
  db: Queryable,
  tenantId: string,
  endpointId: string,
  deliveryId: string,
): Promise<(DeliveryRow & { data: unknown }) | undefined> {
  if (!isUuid(endpointId) || !isUuid(deliveryId)) return Promise.resolve(undefined);
  return queryOne<DeliveryRow & { data: unknown }>(
    db,
    `SELECT ${DELIVERY_COLUMNS}, e.data FROM ${DELIVERY_TABLES}
     WHERE d.tenant_id = $1 AND d.endpoint_id = $2 AND d.id = $3`,
    [tenantId, endpointId, deliveryId],
  );
}

/** A fresh pending delivery of the same event to the same endpoint; the old one stays in the log. */
export async function insertRedelivery(
  db: Queryable,
  tenantId: string,
  endpointId: string,
  deliveryId: string,
): Promise<DeliveryRow | undefined> {
  const original = await queryOne<{ event_id: string }>(
    db,
    'SELECT event_id FROM webhook_deliveries WHERE tenant_id = $1 AND endpoint_id = $2 AND id = $3',
    [tenantId, endpointId, deliveryId],
  );
  if (!original) return undefined;
  const [id] = await queueDeliveries(db, tenantId, original.event_id, [endpointId]);
  return findDelivery(db, tenantId, endpointId, id!);
}
