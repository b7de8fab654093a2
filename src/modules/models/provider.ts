/**
 * The one interface every AI model provider implements. The chat pipeline builds the
 * prompt; a provider only turns it into a reply (whole or streamed) and reports tokens.
 */
export interface ModelMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** A knowledge hit as the built-in answerer needs it (a subset of the search result). */
export interface GroundingHit {
  title: string;
  content: string;
  score: number;
}

export interface ModelRequest {
  /**
   * The bot's model override (`bots.model`): `provider:model`, `offline`, or a plain model
   * name for the deployment's provider. Null or empty means the deployment default.
   */
  model?: string | null;
  /** The fully assembled and protected system prompt. */
  system: string;
  /** History in chronological order; the last entry is the current user message. */
  messages: ModelMessage[];
  /**
   * What the built-in offline answerer works from: it does not read the prompt like a
   * language model, it answers from the best knowledge hit in the user's language.
   */
  grounding: { userMessage: string; knowledge: GroundingHit[]; formalAddress: boolean };
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface ModelReply {
  text: string;
  /** Name of the model that actually answered. */
  model: string;
  promptTokens: number;
  completionTokens: number;
  /**
   * The model found no answer in the knowledge (the offline model's hand-over reply). Real
   * providers signal it with the marker `[NO_ANSWER]` in the text instead (no-answer.ts).
   */
  noAnswer?: boolean;
}

export type ModelStreamEvent = { type: 'delta'; text: string } | { type: 'done'; reply: ModelReply };

export interface ModelProvider {
  readonly name: string;
  /** Which provider and model a request goes to (for traces and logs; no prompt content). */
  describe?(request: Pick<ModelRequest, 'model'>): { provider: string; model: string };
  generate(request: ModelRequest): Promise<ModelReply>;
  /** Text deltas as they arrive, then exactly one `done` event with the whole reply. */
  stream(request: ModelRequest): AsyncIterable<ModelStreamEvent>;
}

/**
 * The model could not answer (outage, timeout, refused request, provider not configured).
 * The chat answers 503 with Retry-After and gives the quota reservation back.
 */
export class ModelUnavailableError extends Error {
  constructor(
    message: string,
    readonly provider: string,
    readonly retryAfterSeconds = 30,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ModelUnavailableError';
  }
}

/** Collects a stream into one reply (used where a caller needs the whole text). */
export async function collectStream(events: AsyncIterable<ModelStreamEvent>): Promise<ModelReply> {
  for await (const event of events) {
    if (event.type === 'done') return event.reply;
  }
  throw new Error('model stream ended without a final event');
}
