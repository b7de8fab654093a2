/**
 * The stages of one chat request: when each ran, how long it took, whether it failed, and the
 * tokens of the model call. The request's log line carries the latencies and tokens (never
 * message text), and with tracing on the same record becomes the request's spans
 * (tracing.ts), so a slow or failed chat can be read from the log or the trace alone.
 */
import type { FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import { isUuid } from '../shared/ids.js';
import { chatOutcomeFor } from './metrics.js';
import type { ChatTraceRecord, TracingHandle } from './tracing.js';

export const CHAT_STAGES = ['auth', 'admission', 'knowledge', 'prompt', 'model', 'reply', 'store'] as const;
export type ChatStage = (typeof CHAT_STAGES)[number];

/** The parts of the admission stage: rate limit, idempotency claim, bot checks and quota. */
export type AdmissionStep = 'rate_limit' | 'idempotency' | 'quota';

/** One timed stage (or part of the admission); times are milliseconds since the epoch. */
export interface StageRecord {
  stage: ChatStage;
  step?: AdmissionStep;
  startMs: number;
  endMs: number;
  /** The class name of the error the stage failed with (never its message). */
  errorType?: string;
}

/** Which model was asked: the provider and model name, never the prompt. */
export interface ModelChoiceRecord {
  provider: string;
  model: string;
}

/** Milliseconds since the epoch with sub-millisecond precision. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

function errorTypeOf(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

export class ChatTrace {
  readonly stagesMs: Partial<Record<ChatStage, number>> = {};
  readonly records: StageRecord[] = [];
  tokensIn: number | undefined;
  tokensOut: number | undefined;
  modelChoice: ModelChoiceRecord | undefined;
  /** The model that actually answered (the reply's name). */
  responseModel: string | undefined;
  private readonly open = new Map<string, number>();

  /** Times one stage; the stage's result or error passes through unchanged. */
  async stage<T>(name: ChatStage, work: Promise<T> | (() => Promise<T>), step?: AdmissionStep): Promise<T> {
    const started = nowMs();
    try {
      const result = await (typeof work === 'function' ? work() : work);
      this.record(name, started, nowMs(), { step });
      return result;
    } catch (error) {
      this.record(name, started, nowMs(), { step, errorType: errorTypeOf(error) });
      throw error;
    }
  }

  /** Starts a stage whose end is noted elsewhere (a model stream). */
  begin(name: ChatStage, step?: AdmissionStep): void {
    this.open.set(`${name}:${step ?? ''}`, nowMs());
  }

  /** Ends a stage opened by `begin`; does nothing when it is not open. */
  end(name: ChatStage, step?: AdmissionStep, error?: unknown): void {
    const key = `${name}:${step ?? ''}`;
    const started = this.open.get(key);
    if (started === undefined) return;
    this.open.delete(key);
    this.record(name, started, nowMs(), {
      step,
      errorType: error === undefined ? undefined : errorTypeOf(error),
    });
  }

  record(
    name: ChatStage,
    startMs: number,
    endMs: number,
    extra: { step?: AdmissionStep; errorType?: string } = {},
  ): void {
    const record: StageRecord = { stage: name, startMs, endMs };
    if (extra.step !== undefined) record.step = extra.step;
    if (extra.errorType !== undefined) record.errorType = extra.errorType;
    this.records.push(record);
    this.stagesMs[name] = Math.round(((this.stagesMs[name] ?? 0) + (endMs - startMs)) * 10) / 10;
  }

  tokens(input: number, output: number, responseModel?: string): void {
    this.tokensIn = input;
    this.tokensOut = output;
    this.responseModel = responseModel;
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

const traces = new WeakMap<FastifyRequest, ChatTrace>();

/** The trace of a chat request, created on first use. */
export function chatTraceOf(request: FastifyRequest): ChatTrace {
  let trace = traces.get(request);
  if (!trace) {
    trace = new ChatTrace();
    traces.set(request, trace);
  }
  return trace;
}

/** The trace of a chat request if it has one. */
export function existingChatTrace(request: FastifyRequest): ChatTrace | undefined {
  return traces.get(request);
}

/** The tenant of a chat request: the API key's, or the signed-in user's (test chat). */
export function chatTenantOf(request: FastifyRequest): string | undefined {
  return request.apiKey?.tenantId ?? request.user?.tenantId ?? undefined;
}

/** The bot a chat request named, when it is a UUID (a path is caller text: nothing else is kept). */
export function chatBotOf(request: FastifyRequest): string | undefined {
  const params = request.params as { botId?: unknown; id?: unknown } | undefined;
  const bot = params?.botId ?? params?.id;
  return isUuid(bot) ? bot : undefined;
}

/** Fields for the request's log line: tenant, bot, outcome, stage latencies, model, tokens. */
export function chatLogFields(request: FastifyRequest, outcome: string): Record<string, unknown> {
  const trace = traces.get(request);
  return stripUndefined({
    tenant_id: chatTenantOf(request),
    bot_id: chatBotOf(request),
    outcome,
    stages_ms: trace?.stagesMs ?? {},
    model_provider: trace?.modelChoice?.provider,
    model: trace?.responseModel ?? trace?.modelChoice?.model,
    tokens_in: trace?.tokensIn,
    tokens_out: trace?.tokensOut,
  });
}

/** Outcomes of a chat request that answered what it was asked (a refusal is a 4xx, not a failure). */
const SUCCESSFUL_OUTCOMES = new Set(['ok', 'replayed']);

function headerValue(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The finished request as the plain record tracing turns into spans. */
export function chatTraceRecord(
  request: FastifyRequest,
  reply: FastifyReply,
  outcome: string,
): ChatTraceRecord {
  const trace = traces.get(request);
  const stages = trace?.records ?? [];
  const endMs = nowMs();
  // Fastify's elapsed time ends when the response finished, a moment before this hook, so
  // `now - elapsed` is a little late: the first stage's start is taken when it is earlier.
  const startMs = Math.min(endMs - reply.elapsedTime, ...stages.map((s) => s.startMs));
  const status = reply.statusCode;
  const model = trace?.modelChoice;
  return {
    traceparent: headerValue(request.headers.traceparent),
    tracestate: headerValue(request.headers.tracestate),
    method: request.method,
    route: request.routeOptions.url ?? request.url,
    statusCode: status,
    startMs,
    endMs,
    tenantId: chatTenantOf(request),
    botId: chatBotOf(request),
    outcome,
    // 5xx, or a stream whose 200 went out before it ended with an error event.
    failed: status >= 500 || (status < 400 && !SUCCESSFUL_OUTCOMES.has(outcome)),
    stages,
    model: model && {
      ...model,
      responseModel: trace.responseModel,
      tokensIn: trace.tokensIn,
      tokensOut: trace.tokensOut,
    },
  };
}

/**
 * The chat routes' onResponse hook: the request's log line gets tenant, bot, outcome, stage
 * latencies, model and tokens, and with tracing on the request becomes one trace.
 */
export function observeChatResponse(tracing: TracingHandle | null): onResponseHookHandler {
  return async (request, reply) => {
    const outcome = chatOutcomeFor(request, reply);
    (request.log as unknown as { setBindings(b: object): void }).setBindings(chatLogFields(request, outcome));
    tracing?.exportChat(chatTraceRecord(request, reply, outcome));
  };
}
