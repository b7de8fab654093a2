import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../shared/context.js';
import { tenantOfKey } from '../auth/index.js';
import { Page } from '../../shared/pagination.js';
import { BEARER_KEY_SECURITY, IdParams, errorResponses } from '../../http/schemas.js';
import {
  ConversationDetail,
  ConversationDetailQuery,
  ConversationListQuery,
  ConversationSchema,
} from './schema.js';
import { getConversationDetail, listConversationsPage } from './service.js';

/** /v1 conversations; registered inside the /v1 plugin, whose guard authenticates and limits. */
export const conversationV1Routes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['v1: conversations'];
  const security = BEARER_KEY_SECURITY;

  app.get(
    '/v1/conversations',
    {
      schema: {
        operationId: 'listConversationsV1',
        tags,
        summary:
          "List the tenant's conversations, newest first (filters bot_id, channel, sender_id, status, from, to)",
        security,
        querystring: ConversationListQuery,
        response: { 200: Page(ConversationSchema), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => listConversationsPage(ctx.db, tenantOfKey(request).tenantId, request.query),
  );

  app.get(
    '/v1/conversations/:id',
    {
      schema: {
        operationId: 'getConversationV1',
        tags,
        summary: 'A conversation with its messages, oldest first (paginated with limit and cursor)',
        security,
        params: IdParams,
        querystring: ConversationDetailQuery,
        response: { 200: ConversationDetail, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) =>
      getConversationDetail(ctx.db, tenantOfKey(request).tenantId, request.params.id, request.query),
  );
};
