import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

/** An API answer that was not a success, with the sentence to show. */
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
}

/** Called when a request answers 401 outside sign-in: the session has ended. */
let onUnauthorized: (() => void) | null = null;
export function setUnauthorizedHandler(handler: (() => void) | null): void {
  onUnauthorized = handler;
}

const csrf: Middleware = {
  onRequest({ request }) {
    // Cookie-authenticated writes must carry a header a cross-site form cannot send.
    request.headers.set('X-Requested-With', 'parley');
    return request;
  },
  onResponse({ response, request }) {
    if (response.status === 401 && !new URL(request.url).pathname.startsWith('/api/auth/'))
      onUnauthorized?.();
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: globalThis.location?.origin ?? 'http://localhost' });
api.use(csrf);

/** The sentence of an error body: `message` of the API's errors, `error` of the chat's. */
export function errorText(body: unknown, fallback: string): { code: string; message: string } {
  if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    const code = typeof record.error === 'string' ? record.error : 'error';
    if (typeof record.message === 'string' && record.message) return { code, message: record.message };
    if (typeof record.error === 'string' && record.error) return { code, message: record.error };
  }
  return { code: 'error', message: fallback };
}

/** Unwraps an openapi-fetch result: the data, or an ApiError with the API's sentence. */
export async function call<T>(
  promise: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await promise;
  if (response.ok) return data as T;
  const { code, message } = errorText(error, `${response.status} ${response.statusText}`);
  const retry = Number(response.headers.get('retry-after'));
  throw new ApiError(
    response.status,
    code,
    message,
    error,
    Number.isFinite(retry) && retry > 0 ? retry : null,
  );
}
