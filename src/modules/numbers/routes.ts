import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import { NumbersQuery, NumbersResponse } from './schema.js';
import { overviewNumbers } from './service.js';

/** The overview's numbers per bot and period (session auth, usage:view). */
export const numbersRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/api/overview/numbers',
    {
      onRequest: requireUser(ctx, 'usage:view'),
      schema: {
        operationId: 'getOverviewNumbers',
        tags: ['dashboard: usage'],
        summary:
          'Conversations, share answered from knowledge, share handed over, median time to a first human reply, satisfaction, top unanswered questions and bookings by bots, per bot and period',
        security: SESSION_SECURITY,
        querystring: NumbersQuery,
        response: { 200: NumbersResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => overviewNumbers(ctx.db, currentUser(request).tenantId, request.query),
  );
};
