/**
 * What happens to an outbox message after one attempt. Pure: the worker supplies the
 * sender's verdict, the attempt number, the limit and a random number, and gets back the
 * next state.
 */

/** The sender's verdict on one attempt. */
export type Verdict =
  /** The receiver has it. */
  | { kind: 'sent' }
  /** Worth trying again (no answer, 5xx, 429 …); `retryAfter` is the receiver's header. */
  | { kind: 'failed'; retryAfter?: string }
  /** Never worth trying again (the receiver is gone, the message cannot be built). */
  | { kind: 'permanent'; reason: string }
  /** Not sendable right now for a reason of our own (a switched-off target): wait, no attempt counted. */
  | { kind: 'held'; delayMs: number };

export type NextState =
  | { kind: 'sent' }
  | { kind: 'retry'; delayMs: number }
  | { kind: 'dead'; reason?: string }
  | { kind: 'held'; delayMs: number };

/** First retry after 30 s, then four times longer each time, never more than 12 h apart. */
export const BASE_DELAY_MS = 30_000;
export const BACKOFF_FACTOR = 4;
export const MAX_DELAY_MS = 12 * 3600_000;
/** A Retry-After beyond a day is read as a day: the message must not vanish into the future. */
export const MAX_RETRY_AFTER_MS = 24 * 3600_000;

/** Exponential backoff with ±25 % jitter, so receivers recovering from an outage are not hit in step. */
export function backoffDelay(attempt: number, random: number): number {
  const exponential = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * BACKOFF_FACTOR ** Math.max(0, attempt - 1));
  return Math.round(exponential * (0.75 + 0.5 * random));
}

/** Retry-After as seconds or as an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed) * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - nowMs), MAX_RETRY_AFTER_MS);
}

/**
 * A failed attempt is retried until `maxAttempts` attempts were made in this round (since
 * the message was queued or last sent again), then the message is dead. A Retry-After
 * replaces the computed backoff.
 */
export function decideNext(input: {
  verdict: Verdict;
  /** Attempts made in this round, this one included. */
  attempt: number;
  maxAttempts: number;
  nowMs: number;
  random: number;
}): NextState {
  const { verdict, attempt, maxAttempts } = input;
  switch (verdict.kind) {
    case 'sent':
      return { kind: 'sent' };
    case 'permanent':
      return { kind: 'dead', reason: verdict.reason };
    case 'held':
      return { kind: 'held', delayMs: verdict.delayMs };
    case 'failed': {
      if (attempt >= maxAttempts) return { kind: 'dead' };
      const retryAfter = parseRetryAfter(verdict.retryAfter, input.nowMs);
      return { kind: 'retry', delayMs: retryAfter ?? backoffDelay(attempt, input.random) };
    }
  }
}
