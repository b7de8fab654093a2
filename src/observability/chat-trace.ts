/**
 * The stages of one chat request: how long each took and the tokens of the model call. The
 * request's log line carries them (never message text), so a slow or failed chat can be read
 * from the log alone.
 */
import type { FastifyRequest } from 'fastify';

export const CHAT_STAGES = [
  'auth',
  'admission',
  'history',
  'knowledge',
  'prompt',
  'model',
  'reply',
  'store',
] as const;
export type ChatStage = (typeof CHAT_STAGES)[number];

export class ChatTrace {
  readonly stagesMs: Partial<Record<ChatStage, number>> = {};
  tokensIn: number | undefined;
  tokensOut: number | undefined;

  /** Times one stage; the stage's result or error passes through unchanged. */
  async stage<T>(name: ChatStage, work: Promise<T> | (() => Promise<T>)): Promise<T> {
    const started = performance.now();
    try {
      return await (typeof work === 'function' ? work() : work);
    } finally {
      this.record(name, performance.now() - started);
    }
  }

  record(name: ChatStage, ms: number): void {
    this.stagesMs[name] = Math.round(((this.stagesMs[name] ?? 0) + ms) * 10) / 10;
  }

  tokens(input: number, output: number): void {
    this.tokensIn = input;
    this.tokensOut = output;
  }
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

/** Fields for the request's log line: tenant, bot, outcome, stage latencies, tokens. */
export function chatLogFields(request: FastifyRequest, outcome: string): Record<string, unknown> {
  const trace = traces.get(request);
  const params = request.params as { botId?: string } | undefined;
  return {
    tenant_id: request.apiKey?.tenantId,
    bot_id: params?.botId,
    outcome,
    stages_ms: trace?.stagesMs ?? {},
    tokens_in: trace?.tokensIn,
    tokens_out: trace?.tokensOut,
  };
}

/** Times `work` as a stage when the request is traced; otherwise just awaits it. */
export function staged<T>(trace: ChatTrace | undefined, name: ChatStage, work: Promise<T>): Promise<T> {
  return trace ? trace.stage(name, work) : work;
}
