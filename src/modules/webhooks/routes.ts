import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { currentUser, requireUser } from '../../http/auth.js';
import { notFound } from '../../http/errors.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import { lifecycleRoutes } from './inbound-routes.js';
import * as repo from './repository.js';
import {
  CreateEndpointBody,
  DeliveriesQuery,
  DeliveryDetail,
  DeliveryParams,
  DeliverySchema,
  EndpointSchema,
  EndpointWithSecret,
  UpdateEndpointBody,
} from './schema.js';
import { SecretBox } from './secret-box.js';
import { serializeAttempt, serializeDelivery, serializeEndpoint } from './serialize.js';
import * as service from './service.js';
import { WebhookWorker } from './worker.js';

/** Builds the delivery worker of an app context (tests build their own to drive it by hand). */
export function createWebhookWorker(
  ctx: AppContext,
  overrides: Partial<ConstructorParameters<typeof WebhookWorker>[0]> = {},
): WebhookWorker {
  return new WebhookWorker({
    db: ctx.db,
    webhooks: ctx.config.webhooks,
    inactivityMinutes: ctx.config.conversations.inactivityMinutes,
    secrets: new SecretBox(ctx.config.webhooks.secretsKey),
    ...overrides,
  });
}

/**
 * Outbound webhook endpoints of a tenant (`webhook:manage`), their delivery log with manual
 * redelivery, the inbound lifecycle webhooks, and the background worker (when enabled).
 */
export const webhookRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const deps: service.EndpointServiceDeps = {
    db: ctx.db,
    secrets: new SecretBox(ctx.config.webhooks.secretsKey),
    allowPrivateTargets: ctx.config.webhooks.allowPrivateTargets,
  };
  const guard = requireUser(ctx, 'webhook:manage');
  const tags = ['webhooks'];
  const security = SESSION_SECURITY;

  await app.register(lifecycleRoutes, { ctx });

  if (ctx.config.webhooks.workerEnabled) {
    const worker = createWebhookWorker(ctx, { log: app.log });
    app.addHook('onReady', async () => worker.start());
    app.addHook('onClose', async () => worker.stop());
  }

  app.get(
    '/api/webhooks',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "The tenant's webhook endpoints (never their secrets)",
        security,
        response: { 200: Type.Object({ webhooks: Type.Array(EndpointSchema) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => ({
      webhooks: (await repo.listEndpoints(ctx.db, currentUser(request).tenantId)).map(serializeEndpoint),
    }),
  );

  app.post(
    '/api/webhooks',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: 'Register an endpoint; the answer shows its whsec_ signing secret once',
        security,
        body: CreateEndpointBody,
        response: { 201: EndpointWithSecret, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      const { url, event_types, description, is_active } = request.body;
      const { endpoint, secret } = await service.createEndpoint(deps, user.tenantId, {
        url,
        eventTypes: event_types,
        description,
        isActive: is_active,
        createdBy: user.id,
      });
      return reply.status(201).send({ webhook: serializeEndpoint(endpoint), secret });
    },
  );

  app.get(
    '/api/webhooks/:id',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: 'One webhook endpoint',
        security,
        params: IdParams,
        response: { 200: Type.Object({ webhook: EndpointSchema }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const endpoint = await repo.findEndpoint(ctx.db, currentUser(request).tenantId, request.params.id);
      if (!endpoint) throw notFound('Webhook endpoint');
      return { webhook: serializeEndpoint(endpoint) };
    },
  );

  app.patch(
    '/api/webhooks/:id',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: 'Change URL, event types, description or the active flag',
        security,
        params: IdParams,
        body: UpdateEndpointBody,
        response: { 200: Type.Object({ webhook: EndpointSchema }), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { url, event_types, description, is_active } = request.body;
      const endpoint = await service.updateEndpoint(deps, currentUser(request).tenantId, request.params.id, {
        url,
        eventTypes: event_types,
        description,
        isActive: is_active,
      });
      return { webhook: serializeEndpoint(endpoint) };
    },
  );

  app.delete(
    '/api/webhooks/:id',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: 'Remove an endpoint with its delivery log; undelivered events are dropped',
        security,
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      if (!(await repo.deleteEndpoint(ctx.db, currentUser(request).tenantId, request.params.id))) {
        throw notFound('Webhook endpoint');
      }
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/webhooks/:id/rotate-secret',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: 'New signing secret (shown once); the previous one keeps signing for 24 hours',
        security,
        params: IdParams,
        response: { 200: EndpointWithSecret, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const { endpoint, secret } = await service.rotateSecret(
        deps,
        currentUser(request).tenantId,
        request.params.id,
      );
      return { webhook: serializeEndpoint(endpoint), secret };
    },
  );

  app.get(
    '/api/webhooks/:id/deliveries',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: 'Delivery log of an endpoint, newest first',
        security,
        params: IdParams,
        querystring: DeliveriesQuery,
        response: {
          200: Type.Object({
            deliveries: Type.Array(DeliverySchema),
            next_cursor: Type.Union([Type.String(), Type.Null()]),
          }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const tenantId = currentUser(request).tenantId;
      const endpoint = await repo.findEndpoint(ctx.db, tenantId, request.params.id);
      if (!endpoint) throw notFound('Webhook endpoint');
      const limit = request.query.limit ?? 50;
      const before = request.query.cursor ? service.decodeCursor(request.query.cursor) : undefined;
      const rows = await repo.listDeliveries(ctx.db, tenantId, endpoint.id, {
        limit,
        status: request.query.status,
        before,
      });
      const last = rows.at(-1);
      return {
        deliveries: rows.map(serializeDelivery),
        next_cursor: rows.length === limit && last ? service.encodeCursor(last) : null,
      };
    },
  );

  app.get(
    '/api/webhooks/:id/deliveries/:deliveryId',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: 'One delivery with its payload and every attempt',
        security,
        params: DeliveryParams,
        response: { 200: DeliveryDetail, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const tenantId = currentUser(request).tenantId;
      const delivery = await repo.findDelivery(
        ctx.db,
        tenantId,
        request.params.id,
        request.params.deliveryId,
      );
      if (!delivery) throw notFound('Webhook delivery');
      const attempts = await repo.listAttempts(ctx.db, tenantId, delivery.id);
      return {
        delivery: serializeDelivery(delivery),
        payload: delivery.data,
        attempts: attempts.map(serializeAttempt),
      };
    },
  );

  app.post(
    '/api/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: 'Send the event of a logged delivery again (a new delivery, same webhook-id)',
        security,
        params: DeliveryParams,
        response: { 202: Type.Object({ delivery: DeliverySchema }), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const delivery = await service.redeliver(
        deps,
        currentUser(request).tenantId,
        request.params.id,
        request.params.deliveryId,
      );
      return reply.status(202).send({ delivery: serializeDelivery(delivery) });
    },
  );
};
