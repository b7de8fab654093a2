import createClient, { type Middleware } from 'openapi-fetch';
import { refusalOf, refusalText } from './error-text';
import type { paths } from './schema';
import { isSignedOut, sessionGeneration } from '../app/session-state';

/**
 * An API answer that was not a success. `message` is the sentence to show, in the user's
 * language (from the body's code); `field` the request field the refusal names, if any.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: unknown,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** What the refusal names (ErrorBody.details): field, resource, limits. */
  get details(): Record<string, unknown> {
    return refusalOf(this.status, this.body).details;
  }

  /** The refused request field (details.field), or null. */
  get field(): string | null {
    const field = this.details.field;
    return typeof field === 'string' ? field : null;
  }
}

/**
 * Called when a request answers 401 outside sign-in: the session has ended. Not for a request
 * sent before the latest sign-in (its session is gone, the new one is fine), and once only.
 */
let onUnauthorized: (() => void) | null = null;
export function setUnauthorizedHandler(handler: (() => void) | null): void {
  onUnauthorized = handler;
}

const sentIn = new Map<string, number>();
const csrf: Middleware = {
  onRequest({ request, id }) {
    sentIn.set(id, sessionGeneration());
    // Cookie-authenticated writes must carry a header a cross-site form cannot send.
    request.headers.set('X-Requested-With', 'parley');
    return request;
  },
  onResponse({ response, request, id }) {
    const generation = sentIn.get(id);
    sentIn.delete(id);
    if (
      response.status === 401 &&
      generation === sessionGeneration() &&
      !isSignedOut() &&
      !new URL(request.url).pathname.startsWith('/api/auth/')
    )
      onUnauthorized?.();
    return response;
  },
  onError({ id }) {
    sentIn.delete(id);
  },
};

export const api = createClient<paths>({ baseUrl: globalThis.location?.origin ?? 'http://localhost' });
api.use(csrf);

/** The code and the sentence (in the user's language) of an error body; `fallback` when there is none. */
export function errorText(body: unknown, fallback: string, status = 400): { code: string; message: string } {
  const refusal = refusalOf(status, body);
  if (!refusal.code) return { code: 'error', message: fallback };
  return { code: refusal.code, message: refusalText(refusal) };
}

/** Unwraps an openapi-fetch result: the data, or an ApiError worded from the body's code. */
export async function call<T>(
  promise: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await promise;
  if (response.ok) return data as T;
  const refusal = refusalOf(response.status, error);
  const message = refusal.code ? refusalText(refusal) : refusalText({ ...refusal, code: 'internal_error' });
  const retry = Number(response.headers.get('retry-after'));
  throw new ApiError(
    response.status,
    refusal.code || 'error',
    message,
    error,
    Number.isFinite(retry) && retry > 0 ? retry : null,
  );
}
