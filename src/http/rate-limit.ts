import type { RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { rateLimitRefusals } from '../observability/metrics.js';
import { AppError, CHAT_TEXT, ErrorCode } from './errors.js';

/** The specification's limit: 60 requests per 60-second window. */
export const RATE_LIMIT_WINDOW_SECONDS = 60;
export const DEFAULT_RATE_LIMIT_MAX = 60;

export type RateLimitKind = 'chat' | 'v1';

/**
 * Who is counted. Chat: per API key id (client address when a request carries none, which
 * only happens if a route forgets requireApiKey). /v1: per tenant, so a tenant cannot
 * multiply its allowance by rotating keys. The kind prefix keeps the two families apart.
 */
function keyFor(kind: RateLimitKind, request: FastifyRequest): string {
  const key = request.apiKey;
  if (kind === 'chat') return key ? `chat:key:${key.keyId}` : `chat:ip:${request.ip}`;
  return key ? `v1:tenant:${key.tenantId}` : `v1:ip:${request.ip}`;
}

function messageFor(kind: RateLimitKind, max: number): string {
  const who = kind === 'chat' ? 'API Key' : 'Mandant';
  return `Zu viele Anfragen: höchstens ${max} Anfragen pro Minute und ${who} erlaubt. Bitte warten Sie bis zum Ablauf des Zeitfensters (siehe Retry-After).`;
}

/** Value of the `RateLimit-Policy` header (IETF draft): `<max>;w=<window seconds>`. */
export function rateLimitPolicy(max: number = DEFAULT_RATE_LIMIT_MAX): string {
  return `${max};w=${RATE_LIMIT_WINDOW_SECONDS}`;
}

/**
 * Per-route rate-limit options for `config: { rateLimit: rateLimitFor(kind) }`.
 *
 * The hook is preParsing: authentication (onRequest) has run, so the key id / tenant is
 * known and a request without a valid key is answered 401 without counting, and the limit
 * applies before the body is read or validated. Counters live in Redis when the plugin was
 * registered with a client (shared by all instances), else in process memory.
 *
 * Note: @fastify/rate-limit keeps one counter store per route. For one limit shared by
 * several routes (the /v1 family), register it once for the plugin instead:
 * `app.addHook('preParsing', app.rateLimit(rateLimitFor('v1')))`.
 */
export function rateLimitFor(kind: RateLimitKind, options: { max?: number } = {}): RateLimitOptions {
  const max = options.max ?? DEFAULT_RATE_LIMIT_MAX;
  const policy = rateLimitPolicy(max);
  return {
    max,
    timeWindow: RATE_LIMIT_WINDOW_SECONDS * 1000,
    hook: 'preParsing',
    enableDraftSpec: true,
    keyGenerator: (request) => keyFor(kind, request),
    errorResponseBuilder: (_request, context) => {
      rateLimitRefusals.inc({ limit: kind });
      const code = kind === 'chat' ? CHAT_TEXT.rateLimited : ErrorCode.rateLimited;
      return new AppError(context.statusCode, code, messageFor(kind, max), {
        headers: { 'ratelimit-policy': policy },
      });
    },
  };
}

/**
 * Adds `RateLimit-Policy` to every response of a rate-limited route (the plugin itself sets
 * only RateLimit-Limit/-Remaining/-Reset and Retry-After). Use it after authentication.
 */
export function rateLimitPolicyHeader(max: number = DEFAULT_RATE_LIMIT_MAX): onRequestHookHandler {
  const policy = rateLimitPolicy(max);
  return async (_request, reply) => {
    reply.header('ratelimit-policy', policy);
  };
}
