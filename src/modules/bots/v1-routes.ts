import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../shared/context.js';
import { tenantOfKey } from '../auth/index.js';
import { Page } from '../../shared/pagination.js';
import { BEARER_KEY_SECURITY, IdParams, errorResponses } from '../../http/schemas.js';
import { BotListQuery, BotSchema, V1CreateBotBody } from './schema.js';
import { createBot } from './editing.js';
import { getBot, listBotsPage, serializeBot } from './service.js';

/** Errors every /v1 route can answer besides its own. */
export const V1_ERRORS = [401, 403, 429] as const;

/**
 * The bots of the public API under /v1 (tenant API key as Bearer). app.ts registers them
 * inside the /v1 scope, whose guard (v1-guard.ts) authenticates and limits every /v1 route.
 */
export const botV1Routes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['v1: bots'];
  const security = BEARER_KEY_SECURITY;

  app.get(
    '/v1/bots',
    {
      schema: {
        operationId: 'listBotsV1',
        tags,
        summary: "List the tenant's bots, newest first (cursor pagination, filters is_active and status)",
        security,
        querystring: BotListQuery,
        response: { 200: Page(BotSchema), ...errorResponses(400, ...V1_ERRORS) },
      },
    },
    async (request) => listBotsPage(ctx.db, tenantOfKey(request).tenantId, request.query),
  );

  app.post(
    '/v1/bots',
    {
      schema: {
        operationId: 'createBotV1',
        tags,
        summary: 'Create a bot; a system_prompt becomes its first prompt version',
        security,
        body: V1CreateBotBody,
        response: { 201: BotSchema, ...errorResponses(400, ...V1_ERRORS) },
      },
    },
    async (request, reply) => {
      const bot = await createBot(ctx.db, tenantOfKey(request).tenantId, request.body);
      return reply.status(201).send(serializeBot(bot));
    },
  );

  app.get(
    '/v1/bots/:id',
    {
      schema: {
        operationId: 'getBotV1',
        tags,
        summary: 'A bot of the tenant',
        security,
        params: IdParams,
        response: { 200: BotSchema, ...errorResponses(...V1_ERRORS, 404) },
      },
    },
    async (request) => serializeBot(await getBot(ctx.db, tenantOfKey(request).tenantId, request.params.id)),
  );
};
