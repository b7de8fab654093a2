import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import type { VerifiedKey } from './api-keys.js';
import type { Permission } from './permissions.js';
import { SESSION_TOKEN_PREFIX, type AuthenticatedUser } from './sessions.js';
import type { AppContext } from '../../context.js';
import { forbidden } from '../../http/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: VerifiedKey | null;
    user: AuthenticatedUser | null;
  }
}

export const SESSION_COOKIE = 'parley_session';

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Tenant API key authentication. The chat and webhook endpoints also accept `x-api-key`;
 * `/v1` takes only `Authorization: Bearer`.
 */
export function requireApiKey(ctx: AppContext, options: { allowHeader: boolean }): onRequestHookHandler {
  return async (request) => {
    let presented = bearerToken(request);
    if (!presented && options.allowHeader) {
      const header = request.headers['x-api-key'];
      presented = typeof header === 'string' && header.trim() ? header.trim() : undefined;
    }
    request.apiKey = await ctx.apiKeys.verify(presented);
  };
}

/** The API key verified for this request; only for routes behind requireApiKey. */
export function tenantOfKey(request: FastifyRequest): VerifiedKey {
  if (!request.apiKey) throw new Error('route is missing requireApiKey');
  return request.apiKey;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request forgery guard for writes signed in by the session cookie: they must carry
 * a non-empty `X-Requested-With`, which a cross-site form or link cannot send and a cross-origin
 * script could only send after a CORS preflight (the API allows no other origin).
 */
function refuseCookieWriteWithoutHeader(request: FastifyRequest): void {
  if (SAFE_METHODS.has(request.method)) return;
  const header = request.headers['x-requested-with'];
  if (typeof header === 'string' && header.trim() !== '') return;
  throw forbidden(
    'Writes signed in by the session cookie need the header X-Requested-With (any value, e.g. parley)',
    { code: 'csrf_header_missing' },
  );
}

/**
 * Dashboard authentication by session (`Authorization: Bearer pst_…` when sent, else the
 * cookie), then the permission check when one is named. Cookie writes need X-Requested-With.
 */
export function requireUser(ctx: AppContext, permission?: Permission): onRequestHookHandler {
  return async (request) => {
    const bearer = bearerToken(request);
    const cookie = bearer?.startsWith(SESSION_TOKEN_PREFIX) ? undefined : request.cookies?.[SESSION_COOKIE];
    const user = await ctx.sessions.authenticate(cookie ?? bearer);
    if (cookie !== undefined) refuseCookieWriteWithoutHeader(request);
    if (permission) ctx.sessions.authorize(user, permission);
    request.user = user;
  };
}

/** The signed-in user; only for routes behind requireUser. */
export function currentUser(request: FastifyRequest): AuthenticatedUser {
  if (!request.user) throw new Error('route is missing requireUser');
  return request.user;
}
