import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import { UsageQuery, UsageResponse } from './schema.js';
import { usageReport } from './service.js';

/** Dashboard usage overview (session auth, usage:view). */
export const usageRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/api/usage',
    {
      onRequest: requireUser(ctx, 'usage:view'),
      schema: {
        operationId: 'getUsage',
        tags: ['dashboard: usage'],
        summary: 'Messages used and remaining this month, tokens, activity per bot and per day',
        security: SESSION_SECURITY,
        querystring: UsageQuery,
        response: { 200: UsageResponse, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => usageReport(ctx.db, currentUser(request).tenantId, request.query.month),
  );
};
