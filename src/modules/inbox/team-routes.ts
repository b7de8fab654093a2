import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import { Ok } from './schema.js';
import { personTyping } from './team.js';

/**
 * The inbox's live presence: a person typing a reply. The visitor sees "Anna schreibt …" in the
 * widget; nothing is stored.
 */
export const inboxTeamRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/api/inbox/:id/typing',
    {
      onRequest: requireUser(ctx, 'inbox:work'),
      schema: {
        operationId: 'typingInInbox',
        tags: ['dashboard: inbox'],
        summary:
          'I am typing a reply: the customer’s widget shows it with my first name (send every few seconds)',
        security: SESSION_SECURITY,
        params: IdParams,
        response: { 200: Ok, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => personTyping(ctx, currentUser(request), request.params.id),
  );
};
