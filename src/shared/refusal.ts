/**
 * The engine's refusals as codes. The engine throws an `EngineRefusal` with its `reason`; only
 * the HTTP layer (http/chat-refusal.ts; this type lives in the base floor so that layer can name it) turns a reason into the chat's status and German text,
 * and channel adapters (e-mail, messaging, voice, widget) branch on the reason, never on a text.
 */

/** Why the engine refused a message (or gave up on it). */
export const REFUSAL_REASONS = [
  'bot_not_found',
  'bot_disabled',
  'conversation_not_found',
  /** People hold the conversation: the bot stays silent (the message is kept for them). */
  'handed_over',
  'quota_exhausted',
  /** The Idempotency-Key was used for a request with other content. */
  'idempotency_mismatch',
  /** The first request with this Idempotency-Key is still running. */
  'idempotency_in_flight',
  /** The model (or the turn's deadline) failed: try again after `retryAfterSeconds`. */
  'model_unavailable',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export class EngineRefusal extends Error {
  readonly reason: RefusalReason;
  /** For `model_unavailable`: when to try again. */
  readonly retryAfterSeconds?: number;
  /** For `handed_over`: the customer's message, kept in the conversation for the people holding it. */
  readonly kept?: { conversationId: string; messageId: string; createdAt: Date };

  constructor(
    reason: RefusalReason,
    options: {
      retryAfterSeconds?: number;
      kept?: { conversationId: string; messageId: string; createdAt: Date };
    } = {},
  ) {
    super(`conversation engine refused: ${reason}`);
    this.name = 'EngineRefusal';
    this.reason = reason;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
    if (options.kept) this.kept = options.kept;
  }
}

/** The refusal's reason, or undefined for any other error. */
export function refusalReason(error: unknown): RefusalReason | undefined {
  return error instanceof EngineRefusal ? error.reason : undefined;
}
