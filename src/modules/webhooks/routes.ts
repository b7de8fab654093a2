import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { notFound } from '../../http/errors.js';
import { Page, PageQuery } from '../../shared/pagination.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import { listAttempts } from '../outbox/index.js';
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
import { webhookSecretsFor } from './secret-box.js';
import { serializeAttempt, serializeDelivery, serializeEndpoint } from './serialize.js';
import * as service from './service.js';

/**
 * Outbound webhook endpoints of a tenant (`webhook:manage`), their delivery log with manual
 * redelivery, and the inbound lifecycle webhooks (deliveries are sent by the outbox worker in the scheduler).
 */
export const webhookRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const deps: service.EndpointServiceDeps = {
    db: ctx.db,
    secrets: webhookSecretsFor(ctx.config),
    allowPrivateTargets: ctx.config.webhooks.allowPrivateTargets,
  };
  const guard = requireUser(ctx, 'webhook:manage');
  const tags = ['webhooks'];
  const security = SESSION_SECURITY;

  app.get(
    '/api/webhooks',
    {
      onRequest: guard,
      schema: {
        operationId: 'listWebhooks',
        tags,
        summary: "The tenant's webhook endpoints (never their secrets)",
        security,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: Page(EndpointSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const page = await service.listEndpointsPage(ctx.db, currentUser(request).tenantId, request.query);
      return { data: page.data.map(serializeEndpoint), next_cursor: page.next_cursor };
    },
  );

  app.post(
    '/api/webhooks',
    {
      onRequest: guard,
      schema: {
        operationId: 'createWebhook',
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
        operationId: 'getWebhook',
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
        operationId: 'updateWebhook',
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
        operationId: 'deleteWebhook',
        tags,
        summary: 'Remove an endpoint with its delivery log; undelivered events are dropped',
        security,
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      if (!(await service.removeEndpoint(ctx.db, currentUser(request).tenantId, request.params.id))) {
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
        operationId: 'rotateWebhookSecret',
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
        operationId: 'listWebhookDeliveries',
        tags,
        summary: 'Delivery log of an endpoint, newest first',
        security,
        params: IdParams,
        querystring: DeliveriesQuery,
        response: {
          200: Page(DeliverySchema),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const tenantId = currentUser(request).tenantId;
      const endpoint = await repo.findEndpoint(ctx.db, tenantId, request.params.id);
      if (!endpoint) throw notFound('Webhook endpoint');
      const page = await service.listDeliveriesPage(ctx.db, tenantId, endpoint.id, request.query);
      return { data: page.data.map(serializeDelivery), next_cursor: page.next_cursor };
    },
  );

  app.get(
    '/api/webhooks/:id/deliveries/:deliveryId',
    {
      onRequest: guard,
      schema: {
        operationId: 'getWebhookDelivery',
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
      const attempts = await listAttempts(ctx.db, tenantId, delivery.id);
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
        operationId: 'redeliverWebhookDelivery',
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
