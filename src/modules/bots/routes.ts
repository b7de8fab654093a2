import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { Page } from '../../shared/pagination.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import { BotListQuery, BotSchema, CreateBotBody, UpdateBotBody } from './schema.js';
import { createBot, editBot } from './editing.js';
import { getBot, listBotsPage, removeBot, serializeBot } from './service.js';

/** Dashboard bot management (session auth): bot:view to read, bot:edit to write. */
export const botRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['dashboard: bots'];
  const security = SESSION_SECURITY;

  app.get(
    '/api/bots',
    {
      onRequest: requireUser(ctx, 'bot:view'),
      schema: {
        operationId: 'listBots',
        tags,
        summary: "List the tenant's bots, newest first (cursor pagination, filters is_active and status)",
        security,
        querystring: BotListQuery,
        response: { 200: Page(BotSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listBotsPage(ctx.db, currentUser(request).tenantId, request.query),
  );

  app.post(
    '/api/bots',
    {
      onRequest: requireUser(ctx, 'bot:edit'),
      schema: {
        operationId: 'createBot',
        tags,
        summary:
          'Create a bot; it starts inactive (a draft) and a system_prompt becomes its first prompt version',
        description:
          'A bot created in the dashboard starts with is_active false and status draft, whatever the body says: ' +
          'it goes live through the activation once its go-live checklist (GET /api/bots/:id/golive) is done. ' +
          'A draft can be tried in the test chat. POST /v1/bots keeps its own defaults (active).',
        security,
        body: CreateBotBody,
        response: { 201: BotSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      const bot = await createBot(
        ctx.db,
        user.tenantId,
        { ...request.body, is_active: false, status: 'draft' },
        user.id,
      );
      return reply.status(201).send(serializeBot(bot));
    },
  );

  app.get(
    '/api/bots/:id',
    {
      onRequest: requireUser(ctx, 'bot:view'),
      schema: {
        operationId: 'getBot',
        tags,
        summary: 'A bot with all its fields',
        security,
        params: IdParams,
        response: { 200: BotSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => serializeBot(await getBot(ctx.db, currentUser(request).tenantId, request.params.id)),
  );

  app.patch(
    '/api/bots/:id',
    {
      onRequest: requireUser(ctx, 'bot:edit'),
      schema: {
        operationId: 'updateBot',
        tags,
        summary:
          'Change bot fields. A changed system_prompt is stored as a new prompt version; activating ' +
          '(is_active true or status active) runs the pre-flight check and is refused with 409 while a block is red',
        security,
        params: IdParams,
        body: UpdateBotBody,
        response: { 200: BotSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const user = currentUser(request);
      const bot = await editBot(
        ctx.db,
        user.tenantId,
        request.params.id,
        request.body,
        user.id,
        ctx.botActivationCheck,
      );
      return serializeBot(bot);
    },
  );

  app.delete(
    '/api/bots/:id',
    {
      onRequest: requireUser(ctx, 'bot:edit'),
      schema: {
        operationId: 'deleteBot',
        tags,
        summary: 'Delete a bot with its conversations, messages and prompt versions',
        security,
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await removeBot(ctx.db, currentUser(request).tenantId, request.params.id);
      return reply.status(204).send(null);
    },
  );
};
