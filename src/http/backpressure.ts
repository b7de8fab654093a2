import type { onRequestHookHandler } from 'fastify';
import type { AppContext } from '../shared/context.js';
import { CHAT_EXTRA_TEXT, ErrorCode } from './errors.js';

/**
 * A route that continues work already admitted (a phone call's relay socket after its incoming
 * webhook was answered) sets `config: { continuesAdmitted: true }`: shedding it would drop the
 * call the instance has already taken, so it is never shed.
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    continuesAdmitted?: boolean;
  }
}

/** Seconds a client is asked to wait when the database is overloaded. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

/** Paths whose requests use the database; health, readiness, metrics and documents are never shed. */
const SHED = /^\/(?:api|v1|webhooks)\//;

/**
 * Backpressure: while more statements wait for the database (PGlite's queue, PostgreSQL's
 * pool) than `DATABASE_QUEUE_LIMIT`, a new request is answered 503 with `Retry-After` at once,
 * before authentication touches the database, instead of joining a queue that would make
 * every request wait seconds. Requests already admitted finish normally.
 */
export function shedWhenBusy(ctx: AppContext): onRequestHookHandler {
  const limit = ctx.config.databaseQueueLimit;
  return async (request, reply) => {
    if (ctx.db.waiting() <= limit || !SHED.test(request.url)) return;
    if (request.routeOptions.config?.continuesAdmitted) return;
    reply.header('retry-after', String(BUSY_RETRY_AFTER_SECONDS)).status(503);
    if (request.routeOptions.config?.errorStyle === 'chat') {
      return reply.send({ error: CHAT_EXTRA_TEXT.serviceUnavailable });
    }
    return reply.send({
      error: ErrorCode.unavailable,
      code: ErrorCode.unavailable,
      message: 'The service is overloaded; please retry shortly (see Retry-After).',
      request_id: request.id,
    });
  };
}
