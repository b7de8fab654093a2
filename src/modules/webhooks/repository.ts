import type { Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';
import { cursorTimestampSql, type TimeCursor } from '../../shared/pagination.js';
import { isUuid } from '../../shared/ids.js';

export interface EndpointRow {
  id: string;
  tenant_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  is_active: boolean;
  /** Sealed, bound to this row and field (secret-box.ts); never leaves the service. */
  secret: string;
  previous_secret: string | null;
  secrets_version: number;
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
    /** Chosen first: the secret is sealed bound to it. */
    id: string;
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
    `INSERT INTO webhook_endpoints (tenant_id, url, description, event_types, is_active, secret, created_by, id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    [
      tenantId,
      input.url,
      input.description,
      input.eventTypes,
      input.isActive,
      input.sealedSecret,
      input.createdBy,
      input.id,
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
  const rows = await db.query('DELETE FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2 RETURNING id', [
    tenantId,
    id,
  ]);
  return rows.length > 0;
}

/** The outbox messages that carry the endpoint's deliveries (a delivery's id is its message's). */
export async function deliveryMessagesOf(db: Queryable, tenantId: string, id: string): Promise<string[]> {
  if (!isUuid(id)) return [];
  const rows = await db.query<{ id: string }>(
    'SELECT id FROM webhook_deliveries WHERE tenant_id = $1 AND endpoint_id = $2',
    [tenantId, id],
  );
  return rows.map((row) => row.id);
}

/** The current secret becomes the previous one, still signing until `graceUntil`. */
/** The endpoint, locked for a change of its secrets. */
export function lockEndpoint(db: Queryable, tenantId: string, id: string): Promise<EndpointRow | undefined> {
  if (!isUuid(id)) return Promise.resolve(undefined);
  return queryOne<EndpointRow>(
    db,
    'SELECT * FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2 FOR UPDATE',
    [tenantId, id],
  );
}

/** The new secret signs from now on; the former one (sealed for its new field) until `graceUntil`. */
export function rotateEndpointSecret(
  db: Queryable,
  tenantId: string,
  id: string,
  sealed: { secret: string; previous: string },
  graceUntil: Date,
): Promise<EndpointRow | undefined> {
  if (!isUuid(id)) return Promise.resolve(undefined);
  return queryOne<EndpointRow>(
    db,
    `UPDATE webhook_endpoints
     SET previous_secret = $5, previous_secret_expires_at = $4, secret = $3, updated_at = now()
     WHERE tenant_id = $1 AND id = $2 RETURNING *`,
    [tenantId, id, sealed.secret, graceUntil, sealed.previous],
  );
}

export interface SealedEndpointRow {
  id: string;
  secret: string;
  previous_secret: string | null;
  secrets_version: number;
}

/** Endpoints whose secrets are of the former form (below `version`) or under another key. */
export function endpointsToReseal(
  db: Queryable,
  version: number,
  currentKeyId: string,
): Promise<SealedEndpointRow[]> {
  return db.query(
    `SELECT id, secret, previous_secret, secrets_version FROM webhook_endpoints
     WHERE secrets_version < $1 OR split_part(secret, ':', 2) <> $2
        OR (previous_secret IS NOT NULL AND split_part(previous_secret, ':', 2) <> $2)
     ORDER BY id`,
    [version, currentKeyId],
  );
}

/** Stores re-sealed secrets, only while the row is still as it was read. */
export async function storeResealedEndpoint(
  db: Queryable,
  row: SealedEndpointRow,
  sealed: Record<string, string>,
  version: number,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE webhook_endpoints SET secret = $2, previous_secret = $3, secrets_version = $5
     WHERE id = $1 AND secrets_version = $4 AND secret = $6 AND previous_secret IS NOT DISTINCT FROM $7
     RETURNING id`,
    [
      row.id,
      sealed.secret,
      sealed.previous_secret ?? null,
      row.secrets_version,
      version,
      row.secret,
      row.previous_secret,
    ],
  );
  return rows.length > 0;
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

/** The event of a delivery of the endpoint, if the tenant has that delivery. */
export async function findDeliveryEventId(
  db: Queryable,
  tenantId: string,
  endpointId: string,
  deliveryId: string,
): Promise<string | undefined> {
  const row = await queryOne<{ event_id: string }>(
    db,
    'SELECT event_id FROM webhook_deliveries WHERE tenant_id = $1 AND endpoint_id = $2 AND id = $3',
    [tenantId, endpointId, deliveryId],
  );
  return row?.event_id;
}

/** How many endpoints the tenant has registered. */
export async function countEndpoints(db: Queryable, tenantId: string): Promise<number> {
  const row = await queryOne<{ n: number }>(
    db,
    'SELECT count(*)::int AS n FROM webhook_endpoints WHERE tenant_id = $1',
    [tenantId],
  );
  return row?.n ?? 0;
}

/** The ids of the tenant's active endpoints that subscribe to an event type. */
export async function listSubscribedEndpointIds(
  db: Queryable,
  tenantId: string,
  type: string,
): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    'SELECT id FROM webhook_endpoints WHERE tenant_id = $1 AND is_active AND $2 = ANY(event_types)',
    [tenantId, type],
  );
  return rows.map((row) => row.id);
}

/**
 * Inserts deliveries (ids given) of one event to endpoints: of a stored event (its id), or of
 * a new event (type and JSON data) that is stored in the same statement.
 */
export async function insertDeliveries(
  db: Queryable,
  tenantId: string,
  event: string | { type: string; data: string },
  ids: string[],
  endpointIds: string[],
): Promise<void> {
  const source =
    typeof event === 'string'
      ? `SELECT $4::uuid AS id`
      : `INSERT INTO webhook_events (tenant_id, type, data) VALUES ($1, $4, $5::jsonb) RETURNING id`;
  await db.query(
    `WITH event AS (${source})
     INSERT INTO webhook_deliveries (id, tenant_id, event_id, endpoint_id)
     SELECT d.id, $1, event.id, d.endpoint_id
     FROM unnest($2::uuid[], $3::uuid[]) AS d(id, endpoint_id) CROSS JOIN event`,
    typeof event === 'string'
      ? [tenantId, ids, endpointIds, event]
      : [tenantId, ids, endpointIds, event.type, event.data],
  );
}

/** What one delivery sends: its event and its endpoint, loaded when it is sent. */
export interface DeliveryToSend {
  endpoint_id: string;
  event_id: string;
  event_type: string;
  data: unknown;
  event_created_at: Date;
  url: string;
  is_active: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

/** A delivery with its event and endpoint, by id (the outbox message's id); any tenant's. */
export function findDeliveryToSend(db: Queryable, deliveryId: string): Promise<DeliveryToSend | undefined> {
  return queryOne<DeliveryToSend>(
    db,
    `SELECT d.endpoint_id, d.event_id, e.type AS event_type, e.data, e.created_at AS event_created_at,
            w.url, w.is_active, w.secret, w.previous_secret, w.previous_secret_expires_at
     FROM webhook_deliveries d
     JOIN webhook_events e ON e.id = d.event_id
     JOIN webhook_endpoints w ON w.id = d.endpoint_id
     WHERE d.id = $1`,
    [deliveryId],
  );
}

/** Switches off the endpoint of a delivery, saying why. */
export async function disableEndpointOfDelivery(
  db: Queryable,
  tenantId: string,
  deliveryId: string,
  reason: string,
): Promise<void> {
  await db.query(
    `UPDATE webhook_endpoints SET is_active = false, disabled_reason = $3, disabled_at = now(), updated_at = now()
     WHERE tenant_id = $1 AND id = (SELECT endpoint_id FROM webhook_deliveries WHERE id = $2)`,
    [tenantId, deliveryId, reason],
  );
}
