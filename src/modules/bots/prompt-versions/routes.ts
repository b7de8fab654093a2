import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../shared/context.js';
import { currentUser, requireUser } from '../../auth/index.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../../http/schemas.js';
import {
  DeleteVersionResponse,
  DiffQuery,
  DiffResponse,
  ListVersionsResponse,
  SaveVersionBody,
  VersionParams,
  VersionResponse,
  serializeVersion,
  summarizeVersion,
} from './schema.js';
import {
  deletePromptVersion,
  diffPromptVersions,
  listPromptVersions,
  restorePromptVersion,
  savePromptVersion,
} from './service.js';

/** Dashboard: numbered prompt versions per bot. */
export const promptVersionRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['prompt-versions'];
  const base = '/api/bots/:id/prompt-versions';

  app.get(
    base,
    {
      onRequest: requireUser(ctx, 'bot:view'),
      schema: {
        operationId: 'listPromptVersions',
        tags,
        summary: "List a bot's prompt versions, newest first, with the current version and prompt",
        security: SESSION_SECURITY,
        params: IdParams,
        response: { 200: ListVersionsResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const { tenantId } = currentUser(request);
      const result = await listPromptVersions(ctx.db, tenantId, request.params.id);
      return {
        success: true as const,
        versions: result.versions.map(serializeVersion),
        current_version: result.current ? serializeVersion(result.current) : null,
        current_prompt: result.currentPrompt,
      };
    },
  );

  app.post(
    base,
    {
      onRequest: requireUser(ctx, 'bot:edit'),
      schema: {
        operationId: 'createPromptVersion',
        tags,
        summary: "Save a new version; it becomes current and the bot's system_prompt",
        security: SESSION_SECURITY,
        params: IdParams,
        body: SaveVersionBody,
        response: { 201: VersionResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      const version = await savePromptVersion(ctx.db, {
        tenantId: user.tenantId,
        botId: request.params.id,
        promptText: request.body.prompt_text,
        versionName: request.body.version_name,
        changeNotes: request.body.change_notes,
        createdBy: user.id,
      });
      return reply.status(201).send({
        success: true as const,
        version: serializeVersion(version),
        current_prompt: version.prompt_text,
      });
    },
  );

  app.post(
    `${base}/:versionId/restore`,
    {
      onRequest: requireUser(ctx, 'bot:edit'),
      schema: {
        operationId: 'restorePromptVersion',
        tags,
        summary: "Make a version current again; its text becomes the bot's system_prompt",
        security: SESSION_SECURITY,
        params: VersionParams,
        response: { 200: VersionResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const { tenantId } = currentUser(request);
      const version = await restorePromptVersion(ctx.db, {
        tenantId,
        botId: request.params.id,
        versionId: request.params.versionId,
      });
      return {
        success: true as const,
        version: serializeVersion(version),
        current_prompt: version.prompt_text,
      };
    },
  );

  app.delete(
    `${base}/:versionId`,
    {
      onRequest: requireUser(ctx, 'bot:edit'),
      schema: {
        operationId: 'deletePromptVersion',
        tags,
        summary: 'Delete a version (never the current one, never the last one: 409)',
        security: SESSION_SECURITY,
        params: VersionParams,
        response: { 200: DeleteVersionResponse, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { tenantId } = currentUser(request);
      const { id, versionId } = request.params;
      await deletePromptVersion(ctx.db, { tenantId, botId: id, versionId });
      return { success: true as const, deleted_id: versionId };
    },
  );

  app.get(
    `${base}/:versionId/diff`,
    {
      onRequest: requireUser(ctx, 'bot:view'),
      schema: {
        operationId: 'diffPromptVersion',
        tags,
        summary: 'Line diff of a version against another (default: the current version)',
        security: SESSION_SECURITY,
        params: VersionParams,
        querystring: DiffQuery,
        response: { 200: DiffResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { tenantId } = currentUser(request);
      const { from, to, diff } = await diffPromptVersions(ctx.db, {
        tenantId,
        botId: request.params.id,
        versionId: request.params.versionId,
        againstId: request.query.against,
      });
      return { success: true as const, from: summarizeVersion(from), to: summarizeVersion(to), ...diff };
    },
  );
};
