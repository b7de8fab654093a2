import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/database.js';
import { AppError, ErrorCode, conflict, notFound } from '../../http/errors.js';
import { timePage } from '../../shared/pagination.js';
import { deleteMessages } from '../outbox/index.js';
import { lockTenant } from '../tenants/index.js';
import { queueDeliveries } from './outbox.js';
import * as repo from './repository.js';
import type { WebhookSecrets } from './secret-box.js';
import { generateSigningSecret } from './signing.js';
import { TargetRefusedError, urlRefusal, checkWebhookUrl } from '../../shared/ssrf.js';

/** Endpoints per tenant: enough for any integration, small enough to keep fan-out cheap. */
export const MAX_ENDPOINTS_PER_TENANT = 20;
/** After a rotation the old secret keeps signing this long, so receivers can switch without loss. */
export const ROTATION_GRACE_MS = 24 * 3600_000;

export interface EndpointServiceDeps {
  db: Database;
  secrets: WebhookSecrets;
  allowPrivateTargets: boolean;
}

async function checkedUrl(raw: string, allowPrivate: boolean): Promise<string> {
  try {
    return (await checkWebhookUrl(raw.trim(), allowPrivate)).toString();
  } catch (error) {
    if (error instanceof TargetRefusedError) throw urlRefusal('url', error);
    throw error;
  }
}

export async function createEndpoint(
  deps: EndpointServiceDeps,
  tenantId: string,
  input: {
    url: string;
    eventTypes: string[];
    description?: string | null;
    isActive?: boolean;
    createdBy: string | null;
  },
): Promise<{ endpoint: repo.EndpointRow; secret: string }> {
  const url = await checkedUrl(input.url, deps.allowPrivateTargets);
  const secret = generateSigningSecret();
  const id = randomUUID();
  const endpoint = await deps.db.transaction(async (tx) => {
    // The tenant row lock serialises concurrent registrations, so the limit holds.
    await lockTenant(tx, tenantId);
    if ((await repo.countEndpoints(tx, tenantId)) >= MAX_ENDPOINTS_PER_TENANT) {
      throw conflict(`A tenant can register at most ${MAX_ENDPOINTS_PER_TENANT} webhook endpoints`, {
        code: 'webhook_limit',
        limit: MAX_ENDPOINTS_PER_TENANT,
      });
    }
    return repo.insertEndpoint(tx, tenantId, {
      id,
      url,
      description: input.description ?? null,
      eventTypes: input.eventTypes,
      isActive: input.isActive ?? true,
      sealedSecret: deps.secrets.seal(secret, id, 'secret'),
      createdBy: input.createdBy,
    });
  });
  return { endpoint, secret };
}

export async function updateEndpoint(
  deps: EndpointServiceDeps,
  tenantId: string,
  id: string,
  changes: { url?: string; eventTypes?: string[]; description?: string | null; isActive?: boolean },
): Promise<repo.EndpointRow> {
  const url = changes.url === undefined ? undefined : await checkedUrl(changes.url, deps.allowPrivateTargets);
  const updated = await repo.updateEndpoint(deps.db, tenantId, id, { ...changes, url });
  if (!updated) throw notFound('Webhook endpoint');
  return updated;
}

export async function rotateSecret(
  deps: EndpointServiceDeps,
  tenantId: string,
  id: string,
  now = new Date(),
): Promise<{ endpoint: repo.EndpointRow; secret: string }> {
  const secret = generateSigningSecret();
  const endpoint = await deps.db.transaction(async (tx) => {
    const current = await repo.lockEndpoint(tx, tenantId, id);
    if (!current) return undefined;
    // The former secret moves to its own field: sealed again, bound to that field.
    const previous = deps.secrets.open(current.secret, current.id, 'secret');
    return repo.rotateEndpointSecret(
      tx,
      tenantId,
      current.id,
      {
        secret: deps.secrets.seal(secret, current.id, 'secret'),
        previous: deps.secrets.seal(previous, current.id, 'previous_secret'),
      },
      new Date(now.getTime() + ROTATION_GRACE_MS),
    );
  });
  if (!endpoint) throw notFound('Webhook endpoint');
  return { endpoint, secret };
}

/** Queues the event of a logged delivery once more, as a new delivery with its own log. */
export async function redeliver(
  deps: EndpointServiceDeps,
  tenantId: string,
  endpointId: string,
  deliveryId: string,
): Promise<repo.DeliveryRow> {
  const endpoint = await repo.findEndpoint(deps.db, tenantId, endpointId);
  if (!endpoint) throw notFound('Webhook endpoint');
  if (!endpoint.is_active) {
    throw new AppError(
      409,
      ErrorCode.conflict,
      'Webhook endpoint is disabled; switch it on before redelivering',
    );
  }
  // A fresh pending delivery of the same event to the same endpoint; the old one stays in the log.
  const delivery = await deps.db.transaction(async (tx) => {
    const eventId = await repo.findDeliveryEventId(tx, tenantId, endpointId, deliveryId);
    if (!eventId) return undefined;
    const [id] = await queueDeliveries(tx, tenantId, eventId, [endpointId]);
    return repo.findDelivery(tx, tenantId, endpointId, id!);
  });
  if (!delivery) throw notFound('Webhook delivery');
  return delivery;
}

const ENDPOINT_LIST = 'webhook_endpoints';
const DELIVERY_LIST = 'webhook_deliveries';

/** One page of the tenant's webhook endpoints, newest first. */
export function listEndpointsPage(
  db: Database,
  tenantId: string,
  query: { limit?: number; cursor?: string },
) {
  return timePage(ENDPOINT_LIST, query, (limit, after) =>
    repo.listEndpoints(db, tenantId, { limit: limit + 1, after }),
  );
}

/** One page of an endpoint's delivery log, newest first, optionally of one status. */
export function listDeliveriesPage(
  db: Database,
  tenantId: string,
  endpointId: string,
  query: { limit?: number; cursor?: string; status?: string },
) {
  return timePage(DELIVERY_LIST, query, (limit, before) =>
    repo.listDeliveries(db, tenantId, endpointId, { limit: limit + 1, status: query.status, before }),
  );
}

/**
 * Removes an endpoint with its delivery log: its outbox messages go first (taking the
 * deliveries and attempts along), undelivered events are dropped. False when there is none.
 */
export function removeEndpoint(db: Database, tenantId: string, id: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    await deleteMessages(tx, tenantId, await repo.deliveryMessagesOf(tx, tenantId, id));
    return repo.deleteEndpoint(tx, tenantId, id);
  });
}
