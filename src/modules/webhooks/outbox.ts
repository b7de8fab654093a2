import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../db/database.js';
import { enqueue } from '../outbox/service.js';
import type { WebhookEventType } from './event-types.js';
import { insertDeliveries, listSubscribedEndpointIds } from './repository.js';

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
  await insertDeliveries(tx, tenantId, eventId, ids, endpointIds);
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
  const targets = await listSubscribedEndpointIds(tx, tenantId, type);
  if (targets.length === 0) return;
  await queueDeliveries(tx, tenantId, { type, data: JSON.stringify(data) }, targets);
}

/**
 * A person's reply on a channel without a sender of its own (the chat API, the tenant's webhook
 * integration, the test chat): the tenant's system receives it as the `conversation.message`
 * event (outbox kind `webhook`, payload `{delivery_id}`), in the reply's transaction.
 */
export async function enqueueConversationMessage(
  tx: Queryable,
  reply: {
    tenantId: string;
    botId: string;
    conversationId: string;
    messageId: string | null;
    text: string;
    createdAt: Date;
  },
): Promise<void> {
  await enqueueEvent(tx, reply.tenantId, 'conversation.message', {
    conversation_id: reply.conversationId,
    bot_id: reply.botId,
    message_id: reply.messageId,
    role: 'assistant',
    from_person: true,
    content: reply.text,
    created_at: reply.createdAt,
  });
}
