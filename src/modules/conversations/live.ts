/**
 * Live updates of the inbox over the cross-instance fan-out: `{type: 'inbox', conversation_id,
 * status}` on the tenant's topic for every change of a handed-over conversation, `{type:
 * 'message', conversation_id, message_id}` on the conversation's topic (and the tenant's, so an
 * open inbox sees new messages), and `{type: 'refusal', conversation_id}` on the tenant's topic
 * when a guard refused a message there. Best effort after the commit: a lost event costs freshness,
 * the stream's reader reloads from the database.
 */
import type { AppContext } from '../../shared/context.js';
import { conversationTopic, fanoutOf, tenantTopic, type TopicEvent } from '../../coordination/fanout.js';
import type { StatementNotify } from '../../coordination/index.js';
import type { HandoverState } from './handover.js';

type Ctx = Pick<AppContext, 'coordination'> & { log?: { warn(obj: object, msg: string): void } };

async function safely(ctx: Ctx, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    ctx.log?.warn({ err: error }, 'inbox fan-out event not sent');
  }
}

/** A conversation's inbox state, on the tenant's topic. */
function inboxChange(tenantId: string, conversationId: string, status: HandoverState): TopicEvent {
  return { topic: tenantTopic(tenantId), event: { type: 'inbox', conversation_id: conversationId, status } };
}

/** The conversation's status as its own streams (the widget) name it. */
const CONVERSATION_STATUS: Record<HandoverState, string> = {
  bot: 'active',
  waiting: 'handed_over',
  with_person: 'handed_over',
  closed: 'ended',
};

/** An inbox change on the tenant's topic, and the conversation's status on its own topic. */
export function publishInboxChange(
  ctx: Ctx,
  tenantId: string,
  conversationId: string,
  status: HandoverState,
): Promise<void> {
  return safely(ctx, () =>
    fanoutOf(ctx.coordination).publishAll([
      inboxChange(tenantId, conversationId, status),
      {
        topic: conversationTopic(tenantId, conversationId),
        event: {
          type: 'status',
          status: CONVERSATION_STATUS[status],
          ...(status === 'closed' ? { closed_by: 'person' } : {}),
        },
      },
    ]),
  );
}

/**
 * Someone is typing in a conversation: a person in the inbox (to the conversation's streams,
 * with their display name) or the visitor (to the inbox, on the tenant's topic). Nothing is
 * stored; a lost event only means no indicator.
 */
export function publishTyping(
  ctx: Ctx,
  tenantId: string,
  conversationId: string,
  typing: { from: 'person'; name: string | null } | { from: 'visitor' },
): Promise<void> {
  const topic =
    typing.from === 'person' ? conversationTopic(tenantId, conversationId) : tenantTopic(tenantId);
  return safely(ctx, () =>
    fanoutOf(ctx.coordination).publish(topic, { type: 'typing', conversation_id: conversationId, ...typing }),
  );
}

export function publishMessage(
  ctx: Ctx,
  tenantId: string,
  conversationId: string,
  messageId: string,
): Promise<void> {
  const event = { type: 'message', conversation_id: conversationId, message_id: messageId };
  return safely(ctx, () =>
    fanoutOf(ctx.coordination).publishAll([
      { topic: conversationTopic(tenantId, conversationId), event },
      { topic: tenantTopic(tenantId), event },
    ]),
  );
}

/**
 * A guard refused a customer's message in a conversation (chat/refusals.ts): the tenant's open
 * inboxes reload its timeline, where the refusal shows.
 */
export function publishRefusal(ctx: Ctx, tenantId: string, conversationId: string): Promise<void> {
  return safely(ctx, () =>
    fanoutOf(ctx.coordination).publish(tenantTopic(tenantId), {
      type: 'refusal',
      conversation_id: conversationId,
    }),
  );
}

/**
 * A hand-over's events: the inbox hears that the conversation waits for a person, the
 * conversation's own streams (the widget) that it was handed over.
 */
function handoverEvents(tenantId: string, conversationId: string): TopicEvent[] {
  return [
    inboxChange(tenantId, conversationId, 'waiting'),
    { topic: conversationTopic(tenantId, conversationId), event: { type: 'status', status: 'handed_over' } },
  ];
}

/** A hand-over's events in one broadcast, after the commit that stored it. */
export function publishHandover(ctx: Ctx, tenantId: string, conversationId: string): Promise<void> {
  return safely(ctx, () => fanoutOf(ctx.coordination).publishAll(handoverEvents(tenantId, conversationId)));
}

/**
 * On PostgreSQL's broadcast, the `pg_notify` arguments with which the statement that stores a
 * hand-over sends its events itself (one round trip fewer); undefined otherwise.
 */
export function handoverNotify(
  ctx: Ctx,
  tenantId: string,
  conversationId: string,
): StatementNotify | undefined {
  return fanoutOf(ctx.coordination).notifyArguments(handoverEvents(tenantId, conversationId));
}
