import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import { GoLiveChecklistSchema } from './schema.js';
import { checklistOf } from './service.js';

/** GET /api/bots/:id/golive: what is done and what is missing before the bot goes live. */
export const goLiveRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/api/bots/:id/golive',
    {
      onRequest: requireUser(ctx, 'bot:view'),
      schema: {
        tags: ['dashboard: bots'],
        operationId: 'getGoLiveChecklist',
        summary: "The bot's go-live checklist: prompt, knowledge, pre-flight, a channel, a test conversation",
        security: SESSION_SECURITY,
        params: IdParams,
        response: { 200: GoLiveChecklistSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => checklistOf(ctx.db, currentUser(request).tenantId, request.params.id),
  );
};
