/**
 * Live updates of the inbox over the cross-instance fan-out: `{type: 'inbox', conversation_id,
 * status}` on the tenant's topic for every change of a handed-over conversation, and `{type:
 * 'message', conversation_id, message_id}` on the conversation's topic (and the tenant's, so an
 * open inbox sees new messages). Best effort after the commit: a lost event costs freshness,
 * the stream's reader reloads from the database.
 */
import type { AppContext } from '../../shared/context.js';
import { conversationTopic, fanoutOf, tenantTopic } from '../../coordination/fanout.js';
import type { HandoverState } from '../conversations/handover.js';

type Ctx = Pick<AppContext, 'coordination'> & { log?: { warn(obj: object, msg: string): void } };

async function safely(ctx: Ctx, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    ctx.log?.warn({ err: error }, 'inbox fan-out event not sent');
  }
}

export function publishInboxChange(
  ctx: Ctx,
  tenantId: string,
  conversationId: string,
  status: HandoverState,
): Promise<void> {
  return safely(ctx, () =>
    fanoutOf(ctx.coordination).publish(tenantTopic(tenantId), {
      type: 'inbox',
      conversation_id: conversationId,
      status,
    }),
  );
}

export function publishMessage(
  ctx: Ctx,
  tenantId: string,
  conversationId: string,
  messageId: string,
): Promise<void> {
  const event = { type: 'message', conversation_id: conversationId, message_id: messageId };
  return safely(ctx, async () => {
    const fanout = fanoutOf(ctx.coordination);
    await fanout.publish(conversationTopic(tenantId, conversationId), event);
    await fanout.publish(tenantTopic(tenantId), event);
  });
}

/**
 * A conversation's status change on its own topic (`{type: 'status', status}`), for the streams
 * that show one conversation (the widget's events: "a person will answer").
 */
export function publishConversationStatus(
  ctx: Ctx,
  tenantId: string,
  conversationId: string,
  status: 'handed_over' | 'active' | 'ended',
): Promise<void> {
  return safely(ctx, () =>
    fanoutOf(ctx.coordination).publish(conversationTopic(tenantId, conversationId), {
      type: 'status',
      status,
    }),
  );
}
