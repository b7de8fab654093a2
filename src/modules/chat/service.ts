import { randomUUID } from 'node:crypto';
import { nowMs, staged, type ChatTrace } from '../../observability/chat-trace.js';
import { observeKnowledgeSearch } from '../../observability/metrics.js';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError, CHAT_TEXT } from '../../http/errors.js';
import { embeddingsFor } from '../knowledge/embeddings.js';
import { type KnowledgeHit } from '../knowledge/search.js';
import { searchForAnswer } from '../knowledge/service.js';
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
import { releaseReliably } from './release.js';
import * as repo from './repository.js';
import { CHAT_EXTRA_TEXT, type ChatInput } from './request.js';

export const HISTORY_LIMIT = 10;
export const KNOWLEDGE_LIMIT = 3;

export interface ChatSource {
  entry_id: string;
  title: string;
  score: number;
  source_url: string | null;
  /** Imported entries: the file name and the PDF page the text is from. */
  source_name?: string;
  page?: number;
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

/** A knowledge hit as the chat cites it; file name and page only where the entry has them. */
export function chatSource(hit: KnowledgeHit): ChatSource {
  return {
    entry_id: hit.entryId,
    title: hit.title,
    score: hit.score,
    source_url: hit.sourceUrl,
    ...(hit.sourceName ? { source_name: hit.sourceName } : {}),
    ...(hit.sourcePage ? { page: hit.sourcePage } : {}),
  };
}

export interface ChatCall {
  tenantId: string;
  botId: string;
  input: ChatInput;
  idempotencyKey: string | null;
  /** Request logger: model outages are logged with their cause, which the client never sees. */
  log?: Pick<FastifyBaseLogger, 'warn' | 'error'>;
  /** Stage latencies and tokens for the request's log line. */
  trace?: ChatTrace;
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
  /** The quota reservation and idempotency claim this request holds, and when their leases end. */
  reservationId: string;
  claimId: string;
  leaseEndsAt: number;
}

export type ChatStart =
  { kind: 'replay'; response: ChatResponse } | { kind: 'prepared'; prepared: PreparedChat };

/**
 * A chat request's own deadline: two model attempts (timeout and one retry) plus time for the
 * database. A request still running then is given up (503), so its leases can be bounded.
 */
export function chatDeadlineMs(ctx: AppContext): number {
  return ctx.config.model.timeoutMs * 2 + 30_000;
}

/**
 * The quota reservation and the in-flight idempotency claim outlive the request's deadline
 * (with a margin for the release itself) before the sweep gives them back or another request
 * takes them over.
 */
function leaseSeconds(ctx: AppContext): number {
  return Math.ceil(chatDeadlineMs(ctx) / 1000) + 30;
}

/**
 * When the service stops waiting for a statement it sends now (the client-side limit of the
 * PostgreSQL pool). Claims and reservations are made only before it, so a frozen server that
 * runs the statement later, when the request has long failed, holds nothing for anyone.
 */
function statementDeadline(ctx: AppContext): Date {
  return new Date(Date.now() + ctx.config.databaseStatementTimeoutMs + 1000);
}

/** The timer of each request's deadline, cleared when the request is done with the model. */
const deadlines = new WeakMap<AbortSignal, NodeJS.Timeout>();

/**
 * The model call's signal: the client's (disconnect) combined with the request's deadline
 * (a TimeoutError). One controller and a timer: AbortSignal.any with AbortSignal.timeout cost
 * about ten times as much CPU per chat.
 */
function withDeadline(ctx: AppContext, signal?: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('The chat request ran past its deadline', 'TimeoutError')),
    chatDeadlineMs(ctx),
  );
  timer.unref();
  deadlines.set(controller.signal, timer);
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  return controller.signal;
}

function clearDeadline(prepared: PreparedChat): void {
  const signal = prepared.modelRequest.signal;
  if (signal) clearTimeout(deadlines.get(signal));
}

/**
 * Runs the checks of the specification in order (bot → active → conversation → hand-over →
 * quota), then loads history, knowledge and prompt. Whatever fails after the quota
 * reservation or the idempotency claim gives them back.
 */
export async function startChat(ctx: AppContext, call: ChatCall, signal?: AbortSignal): Promise<ChatStart> {
  const { tenantId, idempotencyKey } = call;
  const claimId = randomUUID();
  const seconds = leaseSeconds(ctx);
  const leaseEndsAt = Date.now() + seconds * 1000;
  if (idempotencyKey) {
    const requestHash = requestFingerprint(call.botId, call.input);
    const claim = await staged(
      call.trace,
      'admission',
      claimIdempotencyKey(ctx.db, tenantId, {
        key: idempotencyKey,
        requestHash,
        leaseSeconds: seconds,
        claimId,
        validUntil: statementDeadline(ctx),
      }),
      'idempotency',
    );
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
    const lease = { claimId, leaseSeconds: seconds, leaseEndsAt };
    return { kind: 'prepared', prepared: await prepare(ctx, call, withDeadline(ctx, signal), lease) };
  } catch (error) {
    if (idempotencyKey) {
      await releaseReliably(
        () => releaseIdempotencyKey(ctx.db, tenantId, idempotencyKey, claimId),
        leaseEndsAt,
      );
    }
    throw error;
  }
}

async function prepare(
  ctx: AppContext,
  call: ChatCall,
  signal: AbortSignal,
  lease: { claimId: string; leaseSeconds: number; leaseEndsAt: number },
): Promise<PreparedChat> {
  const { tenantId, botId, input } = call;
  const period = quotaPeriod();
  const admission = await staged(
    call.trace,
    'admission',
    repo.admitChat(
      ctx.db,
      tenantId,
      botId,
      input.conversationId,
      period,
      lease.leaseSeconds,
      statementDeadline(ctx),
    ),
    'quota',
  );
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
        : staged(call.trace, 'history', repo.loadHistory(ctx.db, tenantId, conversationId, HISTORY_LIMIT)),
      staged(
        call.trace,
        'knowledge',
        observeKnowledgeSearch(
          // Only the hits the answerability decision keeps; none when the knowledge base has no answer.
          searchForAnswer(ctx.db, tenantId, {
            botId: bot.id,
            query: input.message,
            limit: KNOWLEDGE_LIMIT,
            minScore,
            embeddings: embeddingsFor(ctx.config),
            vocabularyVersion: bot.knowledge_vocabulary_version,
          }).then((found) => found.hits),
        ),
      ),
      collectPromptSections(ctx.chatExtensions, turn, ctx.db),
    ]);
    const promptStarted = nowMs();
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
    call.trace?.record('prompt', promptStarted, nowMs());
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
      reservationId: admission.reservationId,
      claimId: lease.claimId,
      leaseEndsAt: lease.leaseEndsAt,
    };
  } catch (error) {
    await releaseReliably(() => repo.releaseMessage(ctx.db, admission.reservationId), lease.leaseEndsAt);
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
  clearDeadline(prepared);
  const { call, turn, hits } = prepared;
  const { tenantId } = call;
  call.trace?.tokens(reply.promptTokens, reply.completionTokens, reply.model);
  const processed = await staged(
    call.trace,
    'reply',
    processReply(ctx.chatExtensions, turn, reply.text, ctx.db),
  );
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
    sources: hits.map(chatSource),
    actions: processed.actions,
  };
  const stored = await staged(
    call.trace,
    'store',
    repo.storeExchange(ctx.db, tenantId, {
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
      reservation: { id: prepared.reservationId, period: prepared.period },
    }),
  );
  if (!stored) throw handedOver();
  return response;
}

/**
 * Gives back the quota reservation and the idempotency claim of a request that failed; when
 * the database cannot be reached, again in the background until it can (see release.ts).
 */
export async function abandonChat(ctx: AppContext, prepared: PreparedChat): Promise<void> {
  const { tenantId, idempotencyKey } = prepared.call;
  const { reservationId, claimId, leaseEndsAt } = prepared;
  clearDeadline(prepared);
  await Promise.all([
    releaseReliably(() => repo.releaseMessage(ctx.db, reservationId), leaseEndsAt),
    idempotencyKey
      ? releaseReliably(() => releaseIdempotencyKey(ctx.db, tenantId, idempotencyKey, claimId), leaseEndsAt)
      : undefined,
  ]);
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
  signal?: AbortSignal,
): Promise<{ response: ChatResponse; replayed: boolean }> {
  const started = await startChat(ctx, call, signal);
  if (started.kind === 'replay') return { response: started.response, replayed: true };
  const { prepared } = started;
  noteModelChoice(ctx, prepared);
  try {
    const reply = await staged(call.trace, 'model', generate(ctx, prepared.modelRequest));
    // A client that went away gets nothing stored and nothing charged.
    signal?.throwIfAborted();
    return { response: await finishChat(ctx, prepared, reply), replayed: false };
  } catch (error) {
    return failChat(ctx, prepared, error);
  }
}

/** A provider may throw before it returns its promise (e.g. not configured): one failure path. */
async function generate(ctx: AppContext, request: ModelRequest): Promise<ModelReply> {
  return ctx.model.generate(request);
}

/** Notes the provider and model the request goes to, for the trace and the log line. */
export function noteModelChoice(ctx: AppContext, prepared: PreparedChat): void {
  const trace = prepared.call.trace;
  if (!trace) return;
  trace.modelChoice = ctx.model.describe?.(prepared.modelRequest) ?? {
    provider: ctx.model.name,
    model: prepared.modelRequest.model || 'default',
  };
}

/**
 * Gives back what a failed request reserved, then rethrows: a model outage as the chat's 503
 * (logged with its cause, which the client never sees), anything else unchanged.
 */
export async function failChat(ctx: AppContext, prepared: PreparedChat, error: unknown): Promise<never> {
  await abandonChat(ctx, prepared);
  error = pastDeadline(ctx, prepared) ?? error;
  if (error instanceof ModelUnavailableError) {
    prepared.call.log?.warn({ provider: error.provider, reason: error.message }, 'model unavailable');
    throw modelFailure(error);
  }
  throw error;
}

/** The model failure for a request that ran past its own deadline, if it did. */
export function pastDeadline(ctx: AppContext, prepared: PreparedChat): ModelUnavailableError | undefined {
  const reason: unknown = prepared.modelRequest.signal?.reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') {
    return new ModelUnavailableError('chat request ran past its deadline', ctx.model.name);
  }
  return undefined;
}
