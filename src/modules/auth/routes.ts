import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../../shared/context.js';
import { SESSION_COOKIE, currentUser, requireUser } from './guard.js';
import { badRequest, notFound } from '../../http/errors.js';
import { Page, PageQuery } from '../../shared/pagination.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import { findTenant, findTenantPlan } from '../tenants/index.js';
import { isUuid } from '../../shared/ids.js';
import { ROLE_PERMISSIONS, type Role } from './permissions.js';
import { listApiKeysPage } from './api-keys.js';
import { findPublicUser, type ApiKeyMetadata, type PublicUser } from './repository.js';
import {
  ApiKeyMetadataSchema,
  CreateApiKeyBody,
  CreateApiKeyResponse,
  LoginBody,
  LoginResponse,
  MeResponse,
} from './schema.js';

/** Dashboard sign-in and the tenant's API keys. */

export const authRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const secureCookie = ctx.config.nodeEnv === 'production';

  app.post(
    '/api/auth/login',
    {
      schema: {
        operationId: 'login',
        tags: ['auth'],
        summary: 'Log in with e-mail and password; opens a session',
        security: [],
        body: LoginBody,
        response: { 200: LoginResponse, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      const { email, password } = request.body;
      const session = await ctx.sessions.login(email, password, request.ip);
      reply.setCookie(SESSION_COOKIE, session.token, {
        httpOnly: true,
        sameSite: 'lax',
        secure: secureCookie,
        path: '/',
        expires: session.expiresAt,
      });
      const { permissions, tenant } = await sessionFacts(ctx, session.user.tenant_id, session.user.role);
      return {
        token: session.token,
        expires_at: session.expiresAt.toISOString(),
        user: serializeUser(session.user),
        permissions,
        tenant,
      };
    },
  );

  app.post(
    '/api/auth/logout',
    {
      onRequest: requireUser(ctx),
      schema: {
        operationId: 'logout',
        tags: ['auth'],
        summary: 'End the current session',
        security: SESSION_SECURITY,
        response: { 204: Type.Null(), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      await ctx.sessions.logout(currentUser(request));
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/api/me',
    {
      onRequest: requireUser(ctx),
      schema: {
        operationId: 'getCurrentUser',
        tags: ['auth'],
        summary: 'The signed-in user, their permissions and tenant',
        security: SESSION_SECURITY,
        response: { 200: MeResponse, ...errorResponses(401) },
      },
    },
    async (request) => {
      const user = currentUser(request);
      const [row, facts] = await Promise.all([
        findPublicUser(ctx.db, user.tenantId, user.id),
        sessionFacts(ctx, user.tenantId, user.role),
      ]);
      if (!row) throw notFound('User');
      return { user: serializeUser(row), ...facts };
    },
  );

  app.post(
    '/api/api-keys',
    {
      onRequest: requireUser(ctx, 'api_key:manage'),
      schema: {
        operationId: 'createApiKey',
        tags: ['auth'],
        summary: 'Generate a new tenant API key (shown once); the previous key stops working at once',
        security: SESSION_SECURITY,
        body: CreateApiKeyBody,
        response: { 201: CreateApiKeyResponse, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      const body: Static<typeof CreateApiKeyBody> = request.body ?? {};
      if (body.expires_at && body.expires_in_days) {
        throw badRequest('Give either expires_at or expires_in_days, not both', {
          code: 'either_field',
          field: 'expires_in_days',
        });
      }
      let expiresAt: Date | null = null;
      if (body.expires_at) {
        expiresAt = new Date(body.expires_at);
        if (expiresAt.getTime() <= Date.now())
          throw badRequest("Field 'expires_at' must lie in the future", {
            code: 'date_in_past',
            field: 'expires_at',
          });
      } else if (body.expires_in_days) {
        expiresAt = new Date(Date.now() + body.expires_in_days * 86400_000);
      }
      const { key, record } = await ctx.apiKeys.issue({
        tenantId: user.tenantId,
        name: body.name ?? null,
        expiresAt,
        createdBy: user.id,
      });
      return reply.status(201).send({ key, api_key: serializeKey(record) });
    },
  );

  app.get(
    '/api/api-keys',
    {
      onRequest: requireUser(ctx, 'api_key:manage'),
      schema: {
        operationId: 'listApiKeys',
        tags: ['auth'],
        summary: "The tenant's API keys (metadata only, never the key or its hash)",
        security: SESSION_SECURITY,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: Page(ApiKeyMetadataSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const page = await listApiKeysPage(ctx.db, currentUser(request).tenantId, request.query);
      return { data: page.data.map(serializeKey), next_cursor: page.next_cursor };
    },
  );

  app.delete(
    '/api/api-keys/:id',
    {
      onRequest: requireUser(ctx, 'api_key:manage'),
      schema: {
        operationId: 'revokeApiKey',
        tags: ['auth'],
        summary: 'Revoke an API key at once',
        security: SESSION_SECURITY,
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      if (!isUuid(id) || !(await ctx.apiKeys.revoke(currentUser(request).tenantId, id)))
        throw notFound('API key');
      return reply.status(204).send(null);
    },
  );
};

function iso(value: Date | null): string | null {
  return value ? value.toISOString() : null;
}

/** A signed-in user's permissions and tenant, as the sign-in and GET /api/me answer them. */
async function sessionFacts(ctx: AppContext, tenantId: string, role: Role) {
  const [tenant, plan] = await Promise.all([findTenant(ctx.db, tenantId), findTenantPlan(ctx.db, tenantId)]);
  if (!tenant || !plan) throw notFound('User');
  return {
    permissions: [...ROLE_PERMISSIONS[role]],
    tenant: { id: tenant.id, name: tenant.name, plan_id: plan.plan_id },
  };
}

function serializeUser(user: PublicUser) {
  return { ...user, created_at: user.created_at.toISOString() };
}

function serializeKey(key: ApiKeyMetadata) {
  return {
    id: key.id,
    name: key.name,
    key_prefix: key.key_prefix,
    is_active: key.is_active,
    expires_at: iso(key.expires_at),
    created_by: key.created_by,
    created_at: key.created_at.toISOString(),
    revoked_at: iso(key.revoked_at),
    last_used_at: iso(key.last_used_at),
  };
}
