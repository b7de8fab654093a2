/**
 * The widget's event stream, the delivery of a person's reply and the outbox sender that feeds
 * the stream.
 *
 * GET /v1/widget/events subscribes to the conversation's fan-out topic; every instance holding
 * a stream of the conversation gets its events (Redis, LISTEN/NOTIFY or memory). Events name
 * ids only; the stream loads the message and sends it with the message id as the event id, so
 * a client that reconnects with `Last-Event-ID` gets what it missed from the database.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../shared/context.js';
import { conversationTopic, fanoutOf, type FanoutEvent } from '../../coordination/fanout.js';
import { notFound } from '../../http/errors.js';
import { isUuid } from '../../shared/ids.js';
import { enqueue, type OutboxSender } from '../outbox/service.js';
import type { ChannelDelivery } from '../chat/pipeline/types.js';
import { openEventStream, sseEvent } from '../../shared/sse.js';
import { visitorOf } from './access.js';
import * as repo from './repository.js';
import { serializeMessage } from './service.js';
import { queueReplyEmail } from './visitor-service.js';

export const WIDGET_PUSH = 'widget.push';

export interface WidgetPushPayload {
  conversation_id: string;
  message_id: string;
}

/**
 * The delivery of a person's reply in a widget conversation: a `widget.push` (payload
 * `{conversation_id, message_id}`, send-once key per message) for the visitor's event stream,
 * and the copy by e-mail when the visitor left an address. The bot's replies go back in the
 * answer to the visitor's request (or its stream), not through the outbox.
 */
export const widgetDelivery: ChannelDelivery = {
  async enqueue(tx, reply) {
    if (!reply.messageId) return;
    const payload: WidgetPushPayload = { conversation_id: reply.conversationId, message_id: reply.messageId };
    await enqueue(tx, reply.tenantId, [
      { kind: WIDGET_PUSH, idempotencyKey: `${WIDGET_PUSH}:${reply.messageId}`, payload },
    ]);
    await queueReplyEmail(tx, reply.tenantId, reply.conversationId, reply.messageId);
  },
};

/**
 * Sender of `widget.push` outbox messages (a person's reply in a widget conversation): publishes
 * `{type: 'message', conversation_id, message_id}` on the conversation's topic. Sent means
 * published; a visitor not connected then reads it from the transcript later.
 */
export function widgetPushSender(ctx: AppContext): OutboxSender {
  const fanout = fanoutOf(ctx.coordination);
  return {
    kind: WIDGET_PUSH,
    maxAttempts: 5,
    attemptTimeoutMs: 5000,
    async send(message) {
      const started = Date.now();
      const payload = message.payload as Partial<WidgetPushPayload>;
      if (!isUuid(payload.conversation_id) || !isUuid(payload.message_id)) {
        return {
          verdict: { kind: 'permanent', reason: 'payload needs conversation_id and message_id' },
          durationMs: 0,
        };
      }
      try {
        await fanout.publish(conversationTopic(message.tenant_id, payload.conversation_id), {
          type: 'message',
          conversation_id: payload.conversation_id,
          message_id: payload.message_id,
        });
        return { verdict: { kind: 'sent' }, durationMs: Date.now() - started };
      } catch (error) {
        return {
          verdict: { kind: 'failed' },
          error: String(error).slice(0, 200),
          durationMs: Date.now() - started,
        };
      }
    },
  };
}

export async function streamEvents(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const { claims } = visitorOf(request);
  const conversation = await repo.findOpenConversation(
    ctx.db,
    claims.tenant_id,
    claims.bot_id,
    claims.visitor_id,
  );
  if (!conversation) throw notFound('Conversation');
  const lastHeader = request.headers['last-event-id'];
  let lastId = typeof lastHeader === 'string' && isUuid(lastHeader) ? lastHeader : undefined;

  const write = openEventStream(reply);
  const withId = (id: string, name: string, data: unknown) => sseEvent(name, data, id);
  write('retry: 3000\n\n');

  // Events are handled one after another, so messages go out in order and once.
  let chain = Promise.resolve();
  const sent = new Set<string>();
  const sendMessages = async (rows: repo.TranscriptRow[]) => {
    for (const row of rows) {
      if (sent.has(row.id)) continue;
      sent.add(row.id);
      lastId = row.id;
      write(withId(row.id, 'message', serializeMessage(row)));
    }
  };
  const catchUp = async () => {
    if (!lastId) return;
    await sendMessages(await repo.transcript(ctx.db, claims.tenant_id, conversation.id, lastId));
  };
  const handle = (event: FanoutEvent) => {
    chain = chain
      .then(async () => {
        if (event.type === 'message' && typeof event.message_id === 'string' && isUuid(event.message_id)) {
          const row = await repo.findMessage(ctx.db, claims.tenant_id, conversation.id, event.message_id);
          if (row) await sendMessages([row]);
        } else if (event.type === 'status' && typeof event.status === 'string') {
          write(
            sseEvent('status', {
              status: event.status,
              ...(event.closed_by === 'person' ? { closed_by: 'person' } : {}),
            }),
          );
        } else if (event.type === 'typing' && event.from === 'person') {
          write(
            sseEvent('typing', { from: 'person', name: typeof event.name === 'string' ? event.name : null }),
          );
        } else if (event.type === 'resync') {
          await catchUp();
        }
      })
      .catch((error: unknown) => request.log.warn({ err: error }, 'widget event not delivered'));
  };

  const unsubscribe = await fanoutOf(ctx.coordination).subscribe(
    conversationTopic(claims.tenant_id, conversation.id),
    handle,
  );
  chain = chain.then(catchUp).catch(() => undefined);
  if (conversation.status === 'handed_over') write(sseEvent('status', { status: 'handed_over' }));
  // The heartbeat belongs to this connection (not a background job): re-armed after each ping,
  // gone with the connection.
  let heartbeat: NodeJS.Timeout | undefined;
  const ping = () => {
    write(sseEvent('ping', {}));
    heartbeat = setTimeout(ping, ctx.config.widget.heartbeatSeconds * 1000).unref();
  };
  heartbeat = setTimeout(ping, ctx.config.widget.heartbeatSeconds * 1000).unref();
  reply.raw.on('close', () => {
    clearTimeout(heartbeat);
    void unsubscribe().catch(() => undefined);
  });
}
