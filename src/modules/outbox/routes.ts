import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { conflict, notFound } from '../../http/errors.js';
import { Page } from '../../shared/pagination.js';
import { SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import * as repo from './repository.js';
import { listDeadPage } from './service.js';
import { DeadQuery, MessageParams, OutboxMessageSchema } from './schema.js';

function serializeMessage(message: repo.OutboxMessage) {
  const waiting = message.status !== 'sent' && message.status !== 'dead';
  return {
    id: message.id,
    kind: message.kind,
    status: message.status,
    attempts: message.attempts,
    payload: message.payload,
    reason: message.last_error,
    last_status_code: message.last_status_code,
    next_attempt_at: waiting ? message.next_attempt_at.toISOString() : null,
    dead_at: message.dead_at?.toISOString() ?? null,
    created_at: message.created_at.toISOString(),
  };
}

/**
 * Dead letters of the tenant's outbox: messages that ran out of attempts or were refused for
 * good, with their reason, and "send again". Webhook deliveries are the messages today, so the
 * routes need `webhook:manage`.
 */
export const outboxRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const guard = requireUser(ctx, 'webhook:manage');
  const tags = ['webhooks'];
  const security = SESSION_SECURITY;

  app.get(
    '/api/outbox/dead',
    {
      onRequest: guard,
      schema: {
        operationId: 'listDeadOutboxMessages',
        tags,
        summary: 'Dead outbox messages (dead letters), most recently dead first',
        security,
        querystring: DeadQuery,
        response: { 200: Page(OutboxMessageSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const page = await listDeadPage(ctx.db, currentUser(request).tenantId, request.query);
      return { data: page.data.map(serializeMessage), next_cursor: page.next_cursor };
    },
  );

  app.post(
    '/api/outbox/:id/resend',
    {
      onRequest: guard,
      schema: {
        operationId: 'resendOutboxMessage',
        tags,
        summary: 'Send a dead message again: a new round of attempts, same id and send-once key',
        security,
        params: MessageParams,
        response: {
          202: Type.Object({ message: OutboxMessageSchema }),
          ...errorResponses(401, 403, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const tenantId = currentUser(request).tenantId;
      const resent = await repo.resend(ctx.db, tenantId, request.params.id);
      if (resent) return reply.status(202).send({ message: serializeMessage(resent) });
      const message = await repo.findMessage(ctx.db, tenantId, request.params.id);
      if (!message) throw notFound('Outbox message');
      throw conflict(`Only a dead message can be sent again; this one is ${message.status}`);
    },
  );
};
