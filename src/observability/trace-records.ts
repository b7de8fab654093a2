/**
 * The records a chat request's trace is made of: written by chat-trace.ts, exported by
 * otel-sdk.ts through the handle in tracing.ts. Data only, so that those three files form no circle.
 */

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

/** Everything one chat request's trace is made of. */
export interface ChatTraceRecord {
  /** W3C trace context of the caller (`traceparent`, `tracestate`), continued when valid. */
  traceparent?: string;
  tracestate?: string;
  method: string;
  /** Route template, e.g. `/api/bot-chat/:botId/chat`. */
  route: string;
  statusCode: number;
  startMs: number;
  endMs: number;
  tenantId?: string;
  botId?: string;
  /** The chat outcome label (`ok`, `replayed`, `model_unavailable`, …). */
  outcome: string;
  /** The request failed on the service's side (5xx, or a stream that ended with an error). */
  failed: boolean;
  stages: StageRecord[];
  model?: ModelChoiceRecord & { responseModel?: string; tokensIn?: number; tokensOut?: number };
}

export interface ChatTracing {
  /** Turns a finished chat request into spans; they are sent in batches in the background. */
  exportChat(record: ChatTraceRecord): void;
  /** Sends the spans buffered so far. */
  flush(): Promise<void>;
  /** Sends the spans still buffered and stops the exporter. */
  shutdown(): Promise<void>;
}
