import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../shared/context.js';
import { currentUser, requireUser } from '../guard.js';
import { Page } from '../../../shared/pagination.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../../http/schemas.js';
import {
  AcceptInvitationBody,
  AcceptedInvitationSchema,
  CreateInvitationBody,
  InvitationListQuery,
  InvitationPreviewSchema,
  InvitationSchema,
  InvitationTokenBody,
  IssuedInvitationSchema,
} from '../invitations/schema.js';
import {
  acceptInvitation,
  inviteUser,
  listInvitations,
  previewInvitation,
  resendInvitation,
  revokeInvitation,
} from '../invitations/service.js';
import { PublicUserSchema } from '../schema.js';
import {
  ChangePasswordBody,
  TeamListQuery,
  TeamUserSchema,
  UpdateProfileBody,
  UpdateUserBody,
} from './schema.js';
import { changeOwnPassword, listUsers, updateOwnProfile, updateUser } from './service.js';

/**
 * The tenant's team: `user:manage` (owners and admins) to manage members and invitations, any
 * user for their own password, and the invited person (holding the link, no session) to accept.
 */
export const userRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['dashboard: team'];
  const security = SESSION_SECURITY;

  app.get(
    '/api/users',
    {
      onRequest: requireUser(ctx, 'user:manage'),
      schema: {
        operationId: 'listUsers',
        tags,
        summary: "List the tenant's users, newest first (cursor pagination, 50 per page by default)",
        security,
        querystring: TeamListQuery,
        response: { 200: Page(TeamUserSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listUsers(ctx.db, currentUser(request).tenantId, request.query),
  );

  app.get(
    '/api/invitations',
    {
      onRequest: requireUser(ctx, 'user:manage'),
      schema: {
        operationId: 'listInvitations',
        tags,
        summary: "The tenant's pending invitations, newest first (expired ones until resent or revoked)",
        security,
        querystring: InvitationListQuery,
        response: { 200: Page(InvitationSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listInvitations(ctx, currentUser(request).tenantId, request.query),
  );

  app.post(
    '/api/invitations',
    {
      onRequest: requireUser(ctx, 'user:manage'),
      schema: {
        operationId: 'inviteUser',
        tags,
        summary:
          'Invite an e-mail address with a role (only owners invite owners); the answer is the same whether or not the address has an account elsewhere',
        security,
        body: CreateInvitationBody,
        response: { 201: IssuedInvitationSchema, ...errorResponses(400, 401, 403, 409, 503) },
      },
    },
    async (request, reply) => {
      const issued = await inviteUser(ctx, request.log, currentUser(request), request.body);
      return reply.status(201).send(issued);
    },
  );

  app.post(
    '/api/invitations/:id/resend',
    {
      onRequest: requireUser(ctx, 'user:manage'),
      schema: {
        operationId: 'resendInvitation',
        tags,
        summary: 'Send an invitation again with a new link and validity period; the old link stops working',
        security,
        params: IdParams,
        response: { 200: IssuedInvitationSchema, ...errorResponses(401, 403, 404, 503) },
      },
    },
    async (request) => resendInvitation(ctx, request.log, currentUser(request), request.params.id),
  );

  app.delete(
    '/api/invitations/:id',
    {
      onRequest: requireUser(ctx, 'user:manage'),
      schema: {
        operationId: 'revokeInvitation',
        tags,
        summary: 'Revoke a pending invitation; its link stops working at once',
        security,
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await revokeInvitation(ctx, currentUser(request), request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/invitations/preview',
    {
      schema: {
        operationId: 'previewInvitation',
        tags,
        summary: 'What an invitation link offers (address, role, team), for the acceptance page',
        security: [],
        body: InvitationTokenBody,
        response: { 200: InvitationPreviewSchema, ...errorResponses(400, 404, 410) },
      },
    },
    async (request) => previewInvitation(ctx, request.body.token),
  );

  app.post(
    '/api/invitations/accept',
    {
      schema: {
        operationId: 'acceptInvitation',
        tags,
        summary: "Accept an invitation: creates the account with the holder's password and names",
        security: [],
        body: AcceptInvitationBody,
        response: { 201: AcceptedInvitationSchema, ...errorResponses(400, 404, 409, 410) },
      },
    },
    async (request, reply) => reply.status(201).send(await acceptInvitation(ctx, request.body)),
  );

  app.patch(
    '/api/users/:id',
    {
      onRequest: requireUser(ctx, 'user:manage'),
      schema: {
        operationId: 'updateUser',
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

  app.patch(
    '/api/me',
    {
      onRequest: requireUser(ctx),
      schema: {
        operationId: 'updateOwnProfile',
        tags,
        summary: "Change the signed-in user's own name and picture (the fields given)",
        description:
          'Widget visitors see the first name and the picture (an https address, up to 2000 characters, ' +
          'without a user name or password) next to the replies the user writes in the inbox.',
        security,
        body: UpdateProfileBody,
        response: { 200: PublicUserSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => updateOwnProfile(ctx.db, currentUser(request), request.body),
  );

  app.post(
    '/api/me/password',
    {
      onRequest: requireUser(ctx),
      schema: {
        operationId: 'changeOwnPassword',
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
