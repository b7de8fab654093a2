import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import { SavedReply, SavedReplyBody, SavedReplyList, SavedReplyPatch } from './schema.js';
import * as savedReplies from './service.js';

/**
 * /api/saved-replies: the team's text snippets for the inbox. Reading needs inbox:work, keeping
 * them saved_reply:manage (owner, admin, editor). Another tenant's reply is a 404.
 */
export const savedReplyRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['dashboard: inbox'];
  const security = SESSION_SECURITY;
  const manage = requireUser(ctx, 'saved_reply:manage');

  app.get(
    '/api/saved-replies',
    {
      onRequest: requireUser(ctx, 'inbox:work'),
      schema: {
        operationId: 'listSavedReplies',
        tags,
        summary: 'The team’s saved replies, by name (typed as /name in the inbox’s reply box)',
        security,
        response: { 200: SavedReplyList, ...errorResponses(401, 403) },
      },
    },
    async (request) => savedReplies.listSavedReplies(ctx.db, currentUser(request).tenantId),
  );

  app.post(
    '/api/saved-replies',
    {
      onRequest: manage,
      schema: {
        operationId: 'createSavedReply',
        tags,
        summary: 'Add a saved reply (409 when the name is taken)',
        security,
        body: SavedReplyBody,
        response: { 201: SavedReply, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      reply.code(201);
      return savedReplies.createSavedReply(ctx.db, user.tenantId, user.id, request.body);
    },
  );

  app.patch(
    '/api/saved-replies/:id',
    {
      onRequest: manage,
      schema: {
        operationId: 'updateSavedReply',
        tags,
        summary: 'Change a saved reply’s name or text',
        security,
        params: IdParams,
        body: SavedReplyPatch,
        response: { 200: SavedReply, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      savedReplies.editSavedReply(ctx.db, currentUser(request).tenantId, request.params.id, request.body),
  );

  app.delete(
    '/api/saved-replies/:id',
    {
      onRequest: manage,
      schema: {
        operationId: 'deleteSavedReply',
        tags,
        summary: 'Delete a saved reply',
        security,
        params: IdParams,
        response: { 204: { type: 'null' }, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await savedReplies.removeSavedReply(ctx.db, currentUser(request).tenantId, request.params.id);
      return reply.code(204).send();
    },
  );
};
