/**
 * The HTTP face of the conversation engine's refusals: each reason's status and the chat's
 * exact German text (the specification's table and the texts beyond it, docs/chat.md).
 */
import { EngineRefusal, type RefusalReason } from '../shared/refusal.js';
import { AppError, CHAT_EXTRA_TEXT, CHAT_MESSAGE, CHAT_TEXT, ErrorCode } from './errors.js';

const STATUS: Record<RefusalReason, number> = {
  bot_not_found: 404,
  bot_disabled: 403,
  conversation_not_found: 404,
  handed_over: 409,
  quota_exhausted: 429,
  idempotency_mismatch: 422,
  idempotency_in_flight: 409,
  model_unavailable: 503,
  budget_exhausted: 429,
  loop_guarded: 429,
  opted_out: 403,
};

/** Seconds until the next UTC midnight, when a daily budget starts again. */
export function secondsToMidnightUtc(now = new Date()): number {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((midnight - now.getTime()) / 1000));
}

/** The chat's error for a refusal: status, text, explaining sentence and headers. */
export function chatRefusalError(refusal: EngineRefusal): AppError {
  const status = STATUS[refusal.reason];
  switch (refusal.reason) {
    case 'bot_not_found':
      return new AppError(status, CHAT_TEXT.botNotFound);
    case 'bot_disabled':
      return new AppError(status, CHAT_TEXT.botDisabled);
    case 'conversation_not_found':
      return new AppError(status, CHAT_TEXT.conversationNotFound);
    case 'quota_exhausted':
      return new AppError(status, CHAT_TEXT.quotaExhausted);
    case 'handed_over':
      return new AppError(status, CHAT_EXTRA_TEXT.handedOver, CHAT_MESSAGE.handedOver);
    case 'idempotency_mismatch':
      return new AppError(status, CHAT_EXTRA_TEXT.idempotencyMismatch, CHAT_MESSAGE.idempotencyMismatch);
    case 'idempotency_in_flight':
      return new AppError(status, CHAT_EXTRA_TEXT.idempotencyInFlight, CHAT_MESSAGE.idempotencyInFlight);
    case 'model_unavailable': {
      const seconds = refusal.retryAfterSeconds ?? 30;
      return new AppError(status, CHAT_EXTRA_TEXT.modelUnavailable, CHAT_MESSAGE.modelUnavailable(seconds), {
        headers: { 'retry-after': String(seconds) },
      });
    }
    // The channel guards' refusals (chat/pipeline/guards.ts). Only the widget's budget reaches
    // HTTP; the e-mail and messaging guards refuse turns no HTTP request waits for.
    case 'budget_exhausted':
      return new AppError(
        status,
        ErrorCode.rateLimited,
        'Der Chat hat sein Tageslimit an Nachrichten erreicht. Bitte morgen erneut versuchen.',
        {
          details: { code: 'widget_budget_exhausted' },
          headers: { 'retry-after': String(refusal.retryAfterSeconds ?? secondsToMidnightUtc()) },
        },
      );
    case 'loop_guarded':
      return new AppError(
        status,
        ErrorCode.rateLimited,
        'Diese Nachricht wird nicht beantwortet: der Bot hat diesem Absender zu oft oder denselben Text schon geantwortet.',
      );
    case 'opted_out':
      return new AppError(
        status,
        ErrorCode.forbidden,
        'Diese Nachricht wird nicht beantwortet: der Absender hat den Nachrichten widersprochen.',
        { details: { code: 'opted_out' } },
      );
  }
}

/** An engine refusal as the chat's error; any other error unchanged. */
export function asChatError(error: unknown): unknown {
  return error instanceof EngineRefusal ? chatRefusalError(error) : error;
}

/** The body an error has in the chat (a stream's `error` event): text and sentence; anything unknown is internal. */
export function chatErrorBody(caught: unknown): { error: string; message?: string } {
  const error = asChatError(caught);
  if (error instanceof AppError) {
    return error.hasMessage ? { error: error.error, message: error.message } : { error: error.error };
  }
  return { error: CHAT_TEXT.internal };
}
