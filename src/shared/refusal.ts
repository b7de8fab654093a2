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
  /** A channel guard: the channel's budget of messages is used up (widget: the bot's day). */
  'budget_exhausted',
  /** A channel guard: the bot answered this sender too often or the same text already (e-mail). */
  'loop_guarded',
  /** A channel guard: the sender opted out of the channel's messages (messaging). */
  'opted_out',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/**
 * Why a channel guard refused a turn: the guard's name and its own reason word (e.g. the e-mail
 * loop guard's `hourly_cap`), which adapters store and the dashboard shows as "not answered
 * because …" (chat/pipeline/guards.ts).
 */
export interface GuardRefusal {
  guard: string;
  reason: string;
}

export class EngineRefusal extends Error {
  readonly reason: RefusalReason;
  /** For a channel guard's refusal: which guard, and its reason word. */
  readonly guard?: GuardRefusal;
  /** For `model_unavailable`: when to try again. */
  readonly retryAfterSeconds?: number;
  /** For `handed_over`: the customer's message, kept in the conversation for the people holding it. */
  readonly kept?: { conversationId: string; messageId: string; createdAt: Date };

  constructor(
    reason: RefusalReason,
    options: {
      retryAfterSeconds?: number;
      kept?: { conversationId: string; messageId: string; createdAt: Date };
      guard?: GuardRefusal;
    } = {},
  ) {
    super(`conversation engine refused: ${reason}`);
    this.name = 'EngineRefusal';
    this.reason = reason;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
    if (options.kept) this.kept = options.kept;
    if (options.guard) this.guard = options.guard;
  }
}

/** The refusal's reason, or undefined for any other error. */
export function refusalReason(error: unknown): RefusalReason | undefined {
  return error instanceof EngineRefusal ? error.reason : undefined;
}
