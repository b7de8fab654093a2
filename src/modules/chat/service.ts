import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError, CHAT_TEXT } from '../../http/errors.js';
import { embeddingsFor } from '../knowledge/embeddings.js';
import { searchKnowledge, type KnowledgeHit } from '../knowledge/search.js';
import { ModelUnavailableError, type ModelReply, type ModelRequest } from '../models/provider.js';
import { assembleSystemPrompt, protectForModel } from '../prompt/assemble.js';
import { collectPromptSections, processReply, type ChatTurn } from './extensions.js';
import {
  IDEMPOTENCY_TTL_HOURS,
  claimIdempotencyKey,
  purgeExpiredIdempotencyKeys,
  releaseIdempotencyKey,
  requestFingerprint,
} from './idempotency.js';
import { quotaPeriod, quotaRemaining } from './quota.js';
import * as repo from './repository.js';
import { CHAT_EXTRA_TEXT, type ChatInput } from './request.js';

export const HISTORY_LIMIT = 10;
export const KNOWLEDGE_LIMIT = 3;

export interface ChatSource {
  entry_id: string;
  title: string;
  score: number;
  source_url: string | null;
}

/** The response of the specification's table plus `sources` and `actions`. */
export interface ChatResponse {
  reply: string;
  conversation_id: string;
  tokens_used: number;
  model: string;
  knowledge_used: boolean;
  quota_remaining: number | null;
  channel: string;
  sources: ChatSource[];
  actions: unknown[];
}

export interface ChatCall {
  tenantId: string;
  botId: string;
  input: ChatInput;
  idempotencyKey: string | null;
  /** Request logger: model outages are logged with their cause, which the client never sees. */
  log?: Pick<FastifyBaseLogger, 'warn' | 'error'>;
}

/** A request that passed every check and holds a quota reservation, ready for the model. */
export interface PreparedChat {
  call: ChatCall;
  bot: repo.ChatBot;
  turn: ChatTurn;
  period: string;
  quotaRemaining: number | null;
  hits: KnowledgeHit[];
  modelRequest: ModelRequest;
}

export type ChatStart =
  { kind: 'replay'; response: ChatResponse } | { kind: 'prepared'; prepared: PreparedChat };

/** In-flight claims outlive the slowest model call (timeout, one retry) before takeover. */
function leaseSeconds(ctx: AppContext): number {
  return Math.ceil((ctx.config.model.timeoutMs * 2) / 1000) + 60;
}

/**
 * Runs the checks of the specification in order (bot → active → conversation → hand-over →
 * quota), then loads history, knowledge and prompt. Whatever fails after the quota
 * reservation or the idempotency claim gives them back.
 */
export async function startChat(ctx: AppContext, call: ChatCall, signal?: AbortSignal): Promise<ChatStart> {
  const { tenantId, idempotencyKey } = call;
  if (idempotencyKey) {
    const requestHash = requestFingerprint(call.botId, call.input);
    const claim = await claimIdempotencyKey(ctx.db, tenantId, {
      key: idempotencyKey,
      requestHash,
      leaseSeconds: leaseSeconds(ctx),
    });
    if (claim.kind === 'replay')
      return { kind: 'replay', response: claim.response as unknown as ChatResponse };
    if (claim.kind === 'mismatch') {
      throw new AppError(
        422,
        CHAT_EXTRA_TEXT.idempotencyMismatch,
        'Dieser Idempotency-Key wurde in den letzten 24 Stunden für eine Anfrage mit anderem Inhalt verwendet.',
      );
    }
    if (claim.kind === 'in_flight') {
      throw new AppError(
        409,
        CHAT_EXTRA_TEXT.idempotencyInFlight,
        'Die erste Anfrage mit diesem Idempotency-Key ist noch nicht abgeschlossen. Bitte später erneut senden.',
      );
    }
    // Expired records are cleared now and then, outside the request's critical path.
    if (Math.random() < 0.01) void purgeExpiredIdempotencyKeys(ctx.db, tenantId).catch(() => undefined);
  }
  try {
    return { kind: 'prepared', prepared: await prepare(ctx, call, signal) };
  } catch (error) {
    if (idempotencyKey) await releaseIdempotencyKey(ctx.db, tenantId, idempotencyKey).catch(() => undefined);
    throw error;
  }
}

async function prepare(ctx: AppContext, call: ChatCall, signal?: AbortSignal): Promise<PreparedChat> {
  const { tenantId, botId, input } = call;
  const period = quotaPeriod();
  const admission = await repo.admitChat(ctx.db, tenantId, botId, input.conversationId, period);
  switch (admission.kind) {
    case 'bot_not_found':
      throw new AppError(404, CHAT_TEXT.botNotFound);
    case 'bot_disabled':
      throw new AppError(403, CHAT_TEXT.botDisabled);
    case 'conversation_not_found':
      throw new AppError(404, CHAT_TEXT.conversationNotFound);
    case 'handed_over':
      throw handedOver();
    case 'quota_exhausted':
      throw new AppError(429, CHAT_TEXT.quotaExhausted);
  }
  const { bot, used } = admission;
  // A new conversation is stored only with the first reply, so a refused request leaves none.
  const isNewConversation = admission.conversationId === null;
  const conversationId = admission.conversationId ?? randomUUID();

  const turn: ChatTurn = {
    tenantId,
    bot,
    conversationId,
    isNewConversation,
    channel: input.channel,
    senderId: input.senderId,
    metadata: input.metadata,
    userMessage: input.message,
  };
  try {
    const minScore = bot.knowledge_min_score ?? ctx.config.knowledge.minScore;
    const [history, hits, extraSections] = await Promise.all([
      isNewConversation
        ? Promise.resolve([])
        : repo.loadHistory(ctx.db, tenantId, conversationId, HISTORY_LIMIT),
      searchKnowledge(ctx.db, tenantId, {
        botId: bot.id,
        query: input.message,
        limit: KNOWLEDGE_LIMIT,
        minScore,
        embeddings: embeddingsFor(ctx.config),
        vocabularyVersion: bot.knowledge_vocabulary_version,
      }),
      collectPromptSections(ctx.chatExtensions, turn, ctx.db),
    ]);
    const systemPrompt = assembleSystemPrompt(bot, { industry_code: bot.tenant_industry_code }, hits, {
      securityLayer: ctx.config.prompt.securityLayer,
      extraSections,
    });
    const forModel = protectForModel({
      systemPrompt: systemPrompt.text,
      history,
      userMessage: input.message,
      bot,
    });
    const modelRequest: ModelRequest = {
      model: bot.model,
      system: forModel.system,
      messages: forModel.messages,
      grounding: {
        userMessage: input.message,
        knowledge: hits.map((h) => ({ title: h.title, content: h.content, score: h.score })),
        formalAddress: bot.formal_address,
      },
      maxTokens: ctx.config.model.maxTokens,
      signal,
    };
    return {
      call,
      bot,
      turn,
      period,
      quotaRemaining: quotaRemaining(bot.monthly_message_quota, used),
      hits,
      modelRequest,
    };
  } catch (error) {
    await repo.releaseMessage(ctx.db, tenantId, period).catch(() => undefined);
    throw error;
  }
}

function handedOver(): AppError {
  return new AppError(
    409,
    CHAT_EXTRA_TEXT.handedOver,
    'Ein Mitarbeiter hat diese Conversation übernommen; der Bot antwortet darin nicht mehr.',
  );
}

/**
 * After the model reply: extensions post-process it, then the question, the reply, the
 * conversation, the token count and the idempotency record are stored in one atomic statement.
 */
export async function finishChat(
  ctx: AppContext,
  prepared: PreparedChat,
  reply: ModelReply,
): Promise<ChatResponse> {
  const { call, turn, hits } = prepared;
  const { tenantId } = call;
  const processed = await processReply(ctx.chatExtensions, turn, reply.text, ctx.db);
  const tokensUsed = reply.promptTokens + reply.completionTokens;
  const knowledgeUsed = hits.length > 0;
  const response: ChatResponse = {
    reply: processed.reply,
    conversation_id: turn.conversationId,
    tokens_used: tokensUsed,
    model: reply.model,
    knowledge_used: knowledgeUsed,
    quota_remaining: prepared.quotaRemaining,
    channel: turn.channel,
    sources: hits.map((h) => ({
      entry_id: h.entryId,
      title: h.title,
      score: h.score,
      source_url: h.sourceUrl,
    })),
    actions: processed.actions,
  };
  const stored = await repo.storeExchange(ctx.db, tenantId, {
    conversationId: turn.conversationId,
    newConversation: turn.isNewConversation
      ? { channel: turn.channel, senderId: turn.senderId, metadata: turn.metadata }
      : null,
    botId: turn.bot.id,
    channel: turn.channel,
    model: reply.model,
    knowledgeUsed,
    // The question carries the prompt's tokens, the answer its own: together tokens_used.
    question: { content: turn.userMessage, tokens: reply.promptTokens },
    answer: { content: response.reply, tokens: reply.completionTokens },
    idempotency: call.idempotencyKey
      ? { key: call.idempotencyKey, response, ttlHours: IDEMPOTENCY_TTL_HOURS }
      : null,
  });
  if (!stored) throw handedOver();
  return response;
}

/** Gives back the quota reservation and the idempotency claim of a request that failed. */
export async function abandonChat(ctx: AppContext, prepared: PreparedChat): Promise<void> {
  const { tenantId, idempotencyKey } = prepared.call;
  await Promise.all([
    repo.releaseMessage(ctx.db, tenantId, prepared.period),
    idempotencyKey ? releaseIdempotencyKey(ctx.db, tenantId, idempotencyKey) : undefined,
  ]).catch(() => undefined);
}

/** The chat error for a model failure: 503 with Retry-After, no provider internals. */
export function modelFailure(error: ModelUnavailableError): AppError {
  const seconds = error.retryAfterSeconds;
  return new AppError(
    503,
    CHAT_EXTRA_TEXT.modelUnavailable,
    `Das KI-Modell ist vorübergehend nicht erreichbar. Bitte in ${seconds} Sekunden erneut versuchen.`,
    { headers: { 'retry-after': String(seconds) } },
  );
}

/** The whole pipeline without streaming. */
export async function chat(
  ctx: AppContext,
  call: ChatCall,
): Promise<{ response: ChatResponse; replayed: boolean }> {
  const started = await startChat(ctx, call);
  if (started.kind === 'replay') return { response: started.response, replayed: true };
  const { prepared } = started;
  try {
    const reply = await ctx.model.generate(prepared.modelRequest);
    return { response: await finishChat(ctx, prepared, reply), replayed: false };
  } catch (error) {
    return failChat(ctx, prepared, error);
  }
}

/**
 * Gives back what a failed request reserved, then rethrows: a model outage as the chat's 503
 * (logged with its cause, which the client never sees), anything else unchanged.
 */
export async function failChat(ctx: AppContext, prepared: PreparedChat, error: unknown): Promise<never> {
  await abandonChat(ctx, prepared);
  if (error instanceof ModelUnavailableError) {
    prepared.call.log?.warn({ provider: error.provider, reason: error.message }, 'model unavailable');
    throw modelFailure(error);
  }
  throw error;
}
