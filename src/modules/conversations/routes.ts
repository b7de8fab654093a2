import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { currentUser, requireUser } from '../auth/guard.js';
import { Page } from '../../shared/pagination.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import {
  ConversationDetail,
  ConversationDetailQuery,
  ConversationListQuery,
  ConversationSchema,
} from './schema.js';
import { getConversationDetail, listConversationsPage } from './service.js';

/** Dashboard conversation viewer (session auth, conversation:view). */
export const conversationRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['dashboard: conversations'];
  const security = SESSION_SECURITY;

  app.get(
    '/api/conversations',
    {
      onRequest: requireUser(ctx, 'conversation:view'),
      schema: {
        tags,
        summary:
          "List the tenant's conversations, newest first (filters bot_id, channel, sender_id, status, from, to)",
        security,
        querystring: ConversationListQuery,
        response: { 200: Page(ConversationSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listConversationsPage(ctx.db, currentUser(request).tenantId, request.query),
  );

  app.get(
    '/api/conversations/:id',
    {
      onRequest: requireUser(ctx, 'conversation:view'),
      schema: {
        tags,
        summary: 'A conversation with its messages, oldest first (paginated with limit and cursor)',
        security,
        params: IdParams,
        querystring: ConversationDetailQuery,
        response: { 200: ConversationDetail, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      getConversationDetail(ctx.db, currentUser(request).tenantId, request.params.id, request.query),
  );
};
