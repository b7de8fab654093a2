/**
 * What to do after one delivery attempt. Pure: the worker supplies the outcome, the attempt
 * number, the limit and a random number, and gets back the next state.
 */
export interface AttemptOutcome {
  /** HTTP status of the receiver's answer; undefined when no answer came (network, timeout). */
  statusCode?: number;
  /** Raw Retry-After header of the answer, if any. */
  retryAfter?: string;
}

export type RetryDecision =
  | { kind: 'succeeded' }
  | { kind: 'retry'; delayMs: number }
  | { kind: 'failed' }
  | { kind: 'disable_endpoint' };

/** First retry after 30 s, then four times longer each time, never more than 12 h apart. */
export const BASE_DELAY_MS = 30_000;
export const BACKOFF_FACTOR = 4;
export const MAX_DELAY_MS = 12 * 3600_000;
/** A Retry-After beyond a day is read as a day: the delivery must not vanish into the future. */
export const MAX_RETRY_AFTER_MS = 24 * 3600_000;

export function isSuccess(statusCode: number | undefined): boolean {
  return statusCode !== undefined && statusCode >= 200 && statusCode < 300;
}

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
 * 2xx succeeds; 410 Gone means the receiver no longer exists and disables the endpoint; any
 * other answer or no answer at all is retried until `maxAttempts` attempts were made. A
 * Retry-After header (429, 503 …) replaces the computed backoff.
 */
export function decideAfterAttempt(input: {
  outcome: AttemptOutcome;
  attempt: number;
  maxAttempts: number;
  nowMs: number;
  random: number;
}): RetryDecision {
  const { outcome, attempt, maxAttempts } = input;
  if (isSuccess(outcome.statusCode)) return { kind: 'succeeded' };
  if (outcome.statusCode === 410) return { kind: 'disable_endpoint' };
  if (attempt >= maxAttempts) return { kind: 'failed' };
  const retryAfter = parseRetryAfter(outcome.retryAfter, input.nowMs);
  return { kind: 'retry', delayMs: retryAfter ?? backoffDelay(attempt, input.random) };
}
