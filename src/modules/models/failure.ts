import { ModelUnavailableError } from './provider.js';

const DEFAULT_RETRY_AFTER_SECONDS = 30;
const MAX_RETRY_AFTER_SECONDS = 600;

interface SdkErrorShape {
  status?: unknown;
  headers?: unknown;
  message?: unknown;
}

function headerValue(headers: unknown, name: string): string | undefined {
  if (headers && typeof (headers as Headers).get === 'function') {
    return (headers as Headers).get(name) ?? undefined;
  }
  return undefined;
}

/** Seconds from the provider's own Retry-After, when it sent a usable one. */
function retryAfterOf(error: SdkErrorShape): number {
  const raw = headerValue(error.headers, 'retry-after');
  const seconds = raw !== undefined ? Number(raw) : NaN;
  if (Number.isFinite(seconds) && seconds > 0) return Math.min(Math.ceil(seconds), MAX_RETRY_AFTER_SECONDS);
  return DEFAULT_RETRY_AFTER_SECONDS;
}

/**
 * Turns whatever a provider SDK threw (after its one retry) into ModelUnavailableError, so
 * the chat can answer 503 without leaking provider internals. A caller's own abort (the
 * client went away) is passed through unchanged.
 */
export function toModelFailure(error: unknown, provider: string, signal?: AbortSignal): Error {
  if (signal?.aborted) return error instanceof Error ? error : new Error(String(error));
  if (error instanceof ModelUnavailableError) return error;
  const shape = (typeof error === 'object' && error !== null ? error : {}) as SdkErrorShape;
  const status = typeof shape.status === 'number' ? shape.status : undefined;
  const reason = status !== undefined ? `HTTP ${status}` : String(shape.message ?? 'no response');
  return new ModelUnavailableError(
    `model provider ${provider} failed: ${reason}`,
    provider,
    retryAfterOf(shape),
    {
      cause: error,
    },
  );
}

/**
 * A stream that ended without its completion marker: cut by the server, or quietly ended by
 * the SDK because the caller aborted. The first is a model failure (503, nothing stored); the
 * second is the caller's own abort and is reported as such.
 */
export function incompleteStream(provider: string, marker: string, signal?: AbortSignal): Error {
  if (signal?.aborted) {
    return signal.reason instanceof Error ? signal.reason : new Error('model request aborted by the caller');
  }
  return new ModelUnavailableError(`model provider ${provider} ended the stream without ${marker}`, provider);
}
