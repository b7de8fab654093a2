import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import { InjectBody, InjectResponse, PreflightResponse } from './schema.js';
import { injectPrompt, runPreflight } from './service.js';

/** Dashboard: pre-flight check of a bot's flow and storing the generated prompt. */
export const preflightRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['preflight'];

  app.get(
    '/api/bots/:id/preflight',
    {
      onRequest: requireUser(ctx, 'bot:view'),
      schema: {
        operationId: 'getPreflight',
        tags,
        summary: 'Check all interactive blocks and flow steps; canActivate is false while any block is red',
        security: SESSION_SECURITY,
        params: IdParams,
        response: { 200: PreflightResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => runPreflight(ctx.db, currentUser(request).tenantId, request.params.id),
  );

  app.post(
    '/api/bots/:id/preflight/inject',
    {
      onRequest: requireUser(ctx, 'bot:edit'),
      schema: {
        operationId: 'injectPreflightPrompt',
        tags,
        summary: "Store the generated prompt in the bot's system_prompt_generated (used by the chat)",
        security: SESSION_SECURITY,
        params: IdParams,
        body: InjectBody,
        response: { 200: InjectResponse, ...errorResponses(400, 401, 403, 404, 413) },
      },
    },
    async (request) => {
      const result = await injectPrompt(
        ctx.db,
        currentUser(request).tenantId,
        request.params.id,
        request.body.injectedPrompt,
      );
      return { success: true as const, ...result, updatedAt: result.updatedAt.toISOString() };
    },
  );
};
