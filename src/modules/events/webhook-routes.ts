import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../shared/context.js';
import { errorResponses } from '../../http/schemas.js';
import { applyProviderNotice } from './payment-service.js';
import { interpretProviderEvent, verifyProviderEvent } from './payments.js';

/**
 * POST /webhooks/stripe. The signature covers the exact bytes sent, so this plugin keeps JSON
 * bodies raw; the parser is scoped to this plugin and changes no other route.
 */
export const stripeWebhookRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    done(null, body);
  });

  app.post(
    '/webhooks/stripe',
    {
      schema: {
        operationId: 'receiveStripeEvent',
        tags: ['webhooks'],
        summary:
          'Stripe events (signed with Stripe-Signature): completed checkout marks the booking paid, ' +
          'a full refund marks it refunded; repeated deliveries change nothing',
        security: [],
        headers: Type.Object({ 'stripe-signature': Type.Optional(Type.String()) }),
        response: {
          200: Type.Object({
            received: Type.Boolean(),
            result: Type.Union([
              Type.Literal('processed'),
              Type.Literal('duplicate'),
              Type.Literal('ignored'),
            ]),
          }),
          ...errorResponses(400, 503),
        },
      },
    },
    async (request) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const event = await verifyProviderEvent(ctx.config.payments, raw, request.headers['stripe-signature']);
      const result = await applyProviderNotice(ctx.db, interpretProviderEvent(event));
      request.log.info({ stripe_event: event.id, type: event.type, result }, 'stripe webhook');
      return { received: true, result };
    },
  );
};
