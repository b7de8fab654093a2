import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { currentUser, requireUser } from '../../http/auth.js';
import { Page } from '../../http/pagination.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import {
  ChangePasswordBody,
  CreateUserBody,
  TeamListQuery,
  TeamUserSchema,
  UpdateUserBody,
} from './users-schema.js';
import { changeOwnPassword, createUser, listUsers, updateUser } from './users-service.js';

/** The tenant's team: `user:manage` (owners and admins) to manage, any user for their own password. */
export const userRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['dashboard: team'];
  const security = SESSION_SECURITY;

  app.get(
    '/api/users',
    {
      onRequest: requireUser(ctx, 'user:manage'),
      schema: {
        tags,
        summary: "List the tenant's users, newest first (cursor pagination, 50 per page by default)",
        security,
        querystring: TeamListQuery,
        response: { 200: Page(TeamUserSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listUsers(ctx.db, currentUser(request).tenantId, request.query),
  );

  app.post(
    '/api/users',
    {
      onRequest: requireUser(ctx, 'user:manage'),
      schema: {
        tags,
        summary: 'Add a user to the team with a role and an initial password (only owners add owners)',
        security,
        body: CreateUserBody,
        response: { 201: TeamUserSchema, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const user = await createUser(ctx, currentUser(request), request.body);
      return reply.status(201).send(user);
    },
  );

  app.patch(
    '/api/users/:id',
    {
      onRequest: requireUser(ctx, 'user:manage'),
      schema: {
        tags,
        summary:
          "Change a user's role or deactivate/reactivate them; the tenant always keeps an active owner",
        security,
        params: IdParams,
        body: UpdateUserBody,
        response: { 200: TeamUserSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => updateUser(ctx.db, currentUser(request), request.params.id, request.body),
  );

  app.post(
    '/api/me/password',
    {
      onRequest: requireUser(ctx),
      schema: {
        tags,
        summary: "Change the signed-in user's own password; their other sessions end",
        security,
        body: ChangePasswordBody,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      await changeOwnPassword(ctx, currentUser(request), request.body);
      return reply.status(204).send(null);
    },
  );
};
