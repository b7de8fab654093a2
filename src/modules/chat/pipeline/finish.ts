/**
 * Finish and fail. Finish: the extensions rewrite the reply, then ONE transaction stores the
 * exchange (question, answer, conversation, tokens, quota, idempotency record) together with
 * the reply's actions (bookings), the flow's new position and a channel's outbox row — or,
 * when the turn has none of them, one atomic statement does. A conversation handed over meanwhile stores nothing and books
 * nothing (the refusal `handed_over`). Fail: whatever a failed turn holds is given back, and the error is turned into
 * the chat's own.
 */
import type { AppContext } from '../../../shared/context.js';
import type { Queryable } from '../../../db/database.js';
import { type HandoverReason, handoverNotify, publishHandover } from '../../conversations/index.js';
import { enqueueEvent } from '../../webhooks/index.js';
import { flowStage } from '../../flow/index.js';
import type { StatementNotify } from '../../../coordination/index.js';
import { recogniseNoAnswer, ModelUnavailableError, type ModelReply } from '../../models/index.js';
import type { KnowledgeHit } from '../../knowledge/index.js';
import { processReply, type ChatTurn, type CollectedReply } from '../extensions.js';
import { IDEMPOTENCY_TTL_HOURS } from '../idempotency.js';
import * as repo from '../repository.js';
import { abandon, handedOver, type Admitted } from './admission.js';
import { EngineRefusal } from '../../../shared/refusal.js';
import {
  chatSource,
  type ChannelDelivery,
  type ChatResponse,
  type ConverseOptions,
  type StageObserver,
} from './types.js';

/** One turn that reached the model (or a decision without it): what finish and fail need. */
export interface Turn {
  admitted: Admitted;
  turn: ChatTurn;
  hits: KnowledgeHit[];
  /** The conversation's flow this turn: its position and what it decided. */
  flow: flowStage.FlowTurn;
  /** The model call's signal: the client's disconnect combined with the turn's deadline. */
  signal: AbortSignal;
  /** The turn hands the conversation over to people (the customer asked for a person). */
  handover?: HandoverReason;
  /** The model found no answer (its `noAnswer` flag or the `[NO_ANSWER]` marker); set by finish. */
  noAnswer?: boolean;
}

type Observe = StageObserver['stage'];

/**
 * The hits the reply rests on: none when the model said it has no answer all the same (the
 * offline model found no sentence in them that answers the question, or a provider's reply
 * carried `[NO_ANSWER]`), so such a reply is neither counted as knowledge used nor cites
 * sources, and it hands the conversation over like a reply without hits.
 */
function usedHits(turn: Turn): KnowledgeHit[] {
  return turn.noAnswer ? [] : turn.hits;
}

/** The hand-over this turn decides, stored with the exchange. */
export type Handover = NonNullable<repo.Exchange['handover']>;

function exchangeOf(
  turn: Turn,
  reply: ModelReply,
  response: ChatResponse,
  handover: Handover | null,
  notify: StatementNotify | undefined,
): repo.Exchange {
  const { admitted, turn: t } = turn;
  const key = admitted.inbound.idempotencyKey;
  return {
    conversationId: t.conversationId,
    newConversation: t.isNewConversation
      ? { channel: t.channel, senderId: t.senderId, metadata: t.metadata }
      : null,
    botId: t.bot.id,
    channel: t.channel,
    model: reply.model,
    knowledgeUsed: response.knowledge_used,
    // The question carries the prompt's tokens, the answer its own: together tokens_used.
    question: { content: t.userMessage, tokens: reply.promptTokens },
    answer: {
      content: response.reply,
      tokens: reply.completionTokens,
      details: {
        // The review shows each source by its entry, title and score.
        sources: response.sources.map((s) => ({ entry_id: s.entry_id, title: s.title, score: s.score })),
        actions: response.actions,
        blocks: response.blocks,
      },
    },
    idempotency: key ? { key, response, ttlHours: IDEMPOTENCY_TTL_HOURS } : null,
    reservation: { id: admitted.reservationId, period: admitted.period },
    handover,
    notify: notify ?? null,
  };
}

function responseOf(
  turn: Turn,
  reply: ModelReply,
  processed: CollectedReply,
  actions: unknown[],
  blocks: flowStage.ChatBlock[],
): ChatResponse {
  const hits = usedHits(turn);
  return {
    reply: processed.reply,
    conversation_id: turn.turn.conversationId,
    tokens_used: reply.promptTokens + reply.completionTokens,
    model: reply.model,
    knowledge_used: hits.length > 0,
    quota_remaining: turn.admitted.quotaRemaining,
    channel: turn.turn.channel,
    sources: hits.map(chatSource),
    actions,
    blocks,
  };
}

/** Stores the exchange with its actions, the flow's position and outbox row: all of them, or none. */
async function store(
  ctx: AppContext,
  turn: Turn,
  reply: ModelReply,
  processed: CollectedReply,
  delivery: ChannelDelivery | undefined,
  blocks: flowStage.ChatBlock[],
  handover: Handover | null,
  notify: StatementNotify | undefined,
): Promise<ChatResponse> {
  const { tenantId } = turn.admitted.inbound;
  const flowMoved = flowStage.stateChanged(turn.flow);
  // A hand-over's `escalation.triggered` event is stored in the same transaction when an
  // endpoint subscribes to it (as the admission read); otherwise the statement alone suffices.
  const escalationEvent = handover !== null && turn.admitted.rows.escalationSubscribed;
  if (processed.apply.length === 0 && !delivery && !flowMoved && !escalationEvent) {
    // The common case: one statement, no transaction round trips.
    const response = responseOf(turn, reply, processed, processed.actions, blocks);
    if (!(await repo.storeExchange(ctx.db, tenantId, exchangeOf(turn, reply, response, handover, notify)))) {
      throw handedOver();
    }
    return response;
  }
  return ctx.db.transaction(async (tx: Queryable) => {
    const actions = [...processed.actions];
    for (const apply of processed.apply) actions.push(...(await apply(tx)));
    const response = responseOf(turn, reply, processed, actions, blocks);
    const stored = await repo.storeExchange(
      tx,
      tenantId,
      exchangeOf(turn, reply, response, handover, notify),
    );
    // Handed over meanwhile: the error rolls the actions back with everything else.
    if (!stored) throw handedOver();
    if (flowMoved) await flowStage.saveState(tx, turn.turn, turn.flow);
    if (handover && escalationEvent) {
      await enqueueEvent(tx, tenantId, 'escalation.triggered', {
        conversation_id: turn.turn.conversationId,
        bot_id: turn.turn.bot.id,
        reason: handover.escalationReason,
        escalated_at: stored.at,
      });
    }
    await delivery?.enqueue(tx, {
      tenantId,
      botId: turn.turn.bot.id,
      conversationId: turn.turn.conversationId,
      channel: turn.turn.channel,
      recipient: turn.turn.senderId,
      from: 'bot',
      messageId: null,
      text: response.reply,
      blocks: response.blocks,
      createdAt: new Date(),
    });
    return response;
  });
}

export interface FinishOptions {
  observe: Observe;
  delivery?: ChannelDelivery;
  /** The actions of a reply decided without the model; they come first. */
  decidedActions?: unknown[];
}

/**
 * Whether the turn hands the conversation over, decided before storing: a `handover` step or
 * option of the flow; else the customer asking for a person; else no answer (the model's
 * no-answer signal, also when it had hits: see usedHits) when HANDOVER_ON_NO_ANSWER is on. The
 * dashboard's test chat is not handed over for a missing answer, only when asked for a person.
 */
function handoverOf(ctx: AppContext, turn: Turn): Handover | null {
  const flow = flowStage.handoverOf(turn.flow);
  const reason: HandoverReason | null =
    flow?.reason ??
    turn.handover ??
    (ctx.config.conversations.handoverOnNoAnswer && !turn.admitted.inbound.test && turn.noAnswer === true
      ? 'no_answer'
      : null);
  if (!reason) return null;
  return {
    escalationReason: flow ? 'flow' : reason,
    reason,
    question: turn.turn.userMessage,
  };
}

/** After the reply: extensions post-process it, then the exchange is stored (see above). */
export async function finish(
  ctx: AppContext,
  turn: Turn,
  modelReply: ModelReply,
  options: FinishOptions,
): Promise<ChatResponse> {
  // The no-answer signal: the marker leaves the text; the turn counts as unanswered.
  const signal = recogniseNoAnswer(modelReply);
  turn.noAnswer = signal.noAnswer;
  const reply = { ...modelReply, text: signal.text };
  const processed = await options.observe('reply', () =>
    processReply(ctx.chatExtensions, turn.turn, reply.text, ctx.db),
  );
  if (options.decidedActions) processed.actions.unshift(...options.decidedActions);
  // The flow stage after the model: block tags leave the reply and become `blocks`.
  const flowReply = flowStage.after(turn.flow, processed.reply);
  processed.reply = flowReply.reply;
  const handover = handoverOf(ctx, turn);
  const { tenantId } = turn.admitted.inbound;
  const { conversationId } = turn.turn;
  // On PostgreSQL's fan-out the statement that stores the hand-over also sends its events.
  const notify = handover ? handoverNotify(ctx, tenantId, conversationId) : undefined;
  const response = await options.observe('store', () =>
    store(ctx, turn, reply, processed, options.delivery, flowReply.blocks, handover, notify),
  );
  if (turn.admitted.inbound.test) {
    await repo.settleTestTurn(ctx.db, tenantId, conversationId, {
      isNew: turn.turn.isNewConversation,
      period: turn.admitted.period,
    });
  }
  if (handover && !notify) await publishHandover(ctx, tenantId, conversationId);
  return response;
}

/** The refusal for a model failure: try again after Retry-After, no provider internals. */
export function modelFailure(error: ModelUnavailableError): EngineRefusal {
  return new EngineRefusal('model_unavailable', { retryAfterSeconds: error.retryAfterSeconds });
}

/** The model failure for a turn that ran past its own deadline, if it did. */
function pastDeadline(ctx: AppContext, signal: AbortSignal): ModelUnavailableError | undefined {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') {
    return new ModelUnavailableError('chat request ran past its deadline', ctx.model.name);
  }
  return undefined;
}

/**
 * The one failure path of an admitted turn: gives back what it reserved (unless the exchange
 * was stored), and returns the error to report — a model outage or the deadline as the chat's
 * refusal `model_unavailable` (logged with its cause, which the client never sees), anything
 * else unchanged.
 */
export async function fail(
  ctx: AppContext,
  turn: Pick<Turn, 'admitted' | 'signal'>,
  caught: unknown,
  options: Pick<ConverseOptions, 'log'> & { stored?: boolean },
): Promise<unknown> {
  if (!options.stored) await abandon(ctx, turn.admitted);
  const error = pastDeadline(ctx, turn.signal) ?? caught;
  if (error instanceof ModelUnavailableError) {
    options.log?.warn({ provider: error.provider, reason: error.message }, 'model unavailable');
    return modelFailure(error);
  }
  return error;
}
