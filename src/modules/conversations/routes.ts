import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { Page } from '../../shared/pagination.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import {
  ConversationDetailQuery,
  ConversationReview,
  DashboardConversationListQuery,
  ConversationSchema,
  ReviewBody,
  ReviewMessageSchema,
  ReviewParams,
} from './schema.js';
import { getConversationReview, listConversationsPage, removeReview, reviewReply } from './service.js';

/**
 * Dashboard conversation review (session auth): reading needs conversation:view, rating a bot
 * reply conversation:review (owner, admin, editor, agent).
 */
export const conversationRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['dashboard: conversations'];
  const security = SESSION_SECURITY;

  app.get(
    '/api/conversations',
    {
      onRequest: requireUser(ctx, 'conversation:view'),
      schema: {
        operationId: 'listConversations',
        tags,
        summary:
          "List the tenant's conversations, newest first (filters bot_id, channel, sender_id, status, from, to, rating, review, handed_over, no_knowledge; kind: customers by default, test or all)",
        security,
        querystring: DashboardConversationListQuery,
        response: { 200: Page(ConversationSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) =>
      listConversationsPage(ctx.db, currentUser(request).tenantId, {
        ...request.query,
        kind: request.query.kind ?? 'customers',
      }),
  );

  app.get(
    '/api/conversations/:id',
    {
      onRequest: requireUser(ctx, 'conversation:view'),
      schema: {
        operationId: 'getConversation',
        tags,
        summary:
          'A conversation with its messages, oldest first (paginated with limit and cursor): per bot reply its sources, actions, blocks, hand-over and review',
        security,
        params: IdParams,
        querystring: ConversationDetailQuery,
        response: { 200: ConversationReview, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      getConversationReview(ctx.db, currentUser(request).tenantId, request.params.id, request.query),
  );

  app.put(
    '/api/conversations/:id/messages/:messageId/review',
    {
      onRequest: requireUser(ctx, 'conversation:review'),
      schema: {
        operationId: 'reviewConversationReply',
        tags,
        summary: 'Rate a bot reply good or bad, with an optional note (replaces an earlier rating)',
        security,
        params: ReviewParams,
        body: ReviewBody,
        response: { 200: ReviewMessageSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      reviewReply(ctx.db, currentUser(request), request.params.id, request.params.messageId, request.body),
  );

  app.delete(
    '/api/conversations/:id/messages/:messageId/review',
    {
      onRequest: requireUser(ctx, 'conversation:review'),
      schema: {
        operationId: 'deleteConversationReplyReview',
        tags,
        summary: 'Take back the rating of a bot reply',
        security,
        params: ReviewParams,
        response: { 200: ReviewMessageSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) =>
      removeReview(ctx.db, currentUser(request).tenantId, request.params.id, request.params.messageId),
  );
};
