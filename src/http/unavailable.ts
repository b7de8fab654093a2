import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Health } from '../health.js';
import { AppError, CHAT_EXTRA_TEXT, ErrorCode } from './errors.js';

/** What a client is told to wait before retrying while a dependency is down. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * The 503 for a database that cannot be reached (down, restarting, frozen, not yet migrated):
 * on the chat endpoint its German text, elsewhere `service_unavailable`; always Retry-After.
 */
export function serviceUnavailable(request: FastifyRequest): AppError {
  const headers = { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) };
  if (request.routeOptions.config?.errorStyle === 'chat') {
    return new AppError(503, CHAT_EXTRA_TEXT.serviceUnavailable, undefined, { headers });
  }
  return new AppError(
    503,
    ErrorCode.unavailable,
    'The service is temporarily unavailable (database). Please retry after the time in Retry-After.',
    { headers },
  );
}

/** Paths that need the database; the rest (health, readiness, metrics, docs) always answer. */
const NEEDS_DATABASE = ['/api/', '/v1/', '/webhooks/'];

/**
 * Answers 503 at once while the database is known to be down or its schema not yet migrated
 * (a start before the database was there), instead of letting every request wait for a
 * connection that cannot come. The database's own probe notices when it is back.
 */
export function availabilityGate(health: Health): onRequestHookHandler {
  return async (request) => {
    if (health.database.up && health.schemaReady) return;
    if (!NEEDS_DATABASE.some((prefix) => request.url.startsWith(prefix))) return;
    throw serviceUnavailable(request);
  };
}
