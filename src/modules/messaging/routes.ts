import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import type { ConnectionRow } from './repository.js';
import {
  ChannelStateSchema,
  ConnectionList,
  ConnectionParams,
  ConnectionSchema,
  CreateConnectionBody,
  UpdateConnectionBody,
} from './schema.js';
import { channelSecretsFor } from './secret-store.js';
import {
  connectionExtras,
  conversationChannelState,
  createConnection,
  editConnection,
  getConnection,
  listBotConnections,
  removeConnection,
  serializeConnection,
  type ConnectionDeps,
} from './service.js';

/** A bot's messaging connections (WhatsApp, SMS, voice numbers): bot:view to read, bot:edit to write. */
export const connectionRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['dashboard: channel connections'];
  const security = SESSION_SECURITY;
  const deps = (): ConnectionDeps => ({
    db: ctx.db,
    config: ctx.config,
    secrets: channelSecretsFor(ctx.config),
  });
  const show = async (rows: ConnectionRow[]) => {
    const extras = await connectionExtras(
      ctx.db,
      rows.map((r) => r.id),
    );
    return rows.map((row) => serializeConnection(row, ctx.config, extras.get(row.id)));
  };

  app.get(
    '/api/bots/:id/connections',
    {
      onRequest: requireUser(ctx, 'bot:view'),
      schema: {
        tags,
        operationId: 'listChannelConnections',
        summary: "The bot's WhatsApp, SMS and voice connections with their health (secrets only by name)",
        security,
        params: IdParams,
        response: { 200: ConnectionList, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => ({
      data: await show(await listBotConnections(ctx.db, currentUser(request).tenantId, request.params.id)),
    }),
  );

  app.post(
    '/api/bots/:id/connections',
    {
      onRequest: requireUser(ctx, 'bot:edit'),
      schema: {
        tags,
        operationId: 'createChannelConnection',
        summary:
          'Connect a WhatsApp (Meta Cloud API or Twilio), SMS or voice number; secrets are stored encrypted and never shown again',
        security,
        params: IdParams,
        body: CreateConnectionBody,
        response: { 201: ConnectionSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const row = await createConnection(
        deps(),
        currentUser(request).tenantId,
        request.params.id,
        request.body,
      );
      return reply.status(201).send((await show([row]))[0]!);
    },
  );

  app.get(
    '/api/bots/:id/connections/:connectionId',
    {
      onRequest: requireUser(ctx, 'bot:view'),
      schema: {
        tags,
        operationId: 'getChannelConnection',
        summary: 'One connection with its health',
        security,
        params: ConnectionParams,
        response: { 200: ConnectionSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const { id, connectionId } = request.params;
      return (await show([await getConnection(ctx.db, currentUser(request).tenantId, id, connectionId)]))[0]!;
    },
  );

  app.patch(
    '/api/bots/:id/connections/:connectionId',
    {
      onRequest: requireUser(ctx, 'bot:edit'),
      schema: {
        tags,
        operationId: 'updateChannelConnection',
        summary:
          'Change a connection; a secret given replaces the stored one at once (and clears a token problem), an absent one is kept',
        security,
        params: ConnectionParams,
        body: UpdateConnectionBody,
        response: { 200: ConnectionSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { id, connectionId } = request.params;
      const row = await editConnection(deps(), currentUser(request).tenantId, id, connectionId, request.body);
      return (await show([row]))[0]!;
    },
  );

  app.delete(
    '/api/bots/:id/connections/:connectionId',
    {
      onRequest: requireUser(ctx, 'bot:edit'),
      schema: {
        tags,
        operationId: 'deleteChannelConnection',
        summary: 'Disconnect (its stored messages go with it; conversations stay)',
        security,
        params: ConnectionParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { id, connectionId } = request.params;
      await removeConnection(ctx.db, currentUser(request).tenantId, id, connectionId);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/api/conversations/:id/channel',
    {
      onRequest: requireUser(ctx, 'conversation:view'),
      schema: {
        tags,
        operationId: 'getConversationChannel',
        summary:
          "A WhatsApp/SMS conversation's delivery statuses, the 24-hour window's remaining time and the opt-out",
        security,
        params: IdParams,
        response: { 200: ChannelStateSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => conversationChannelState(ctx.db, currentUser(request).tenantId, request.params.id),
  );
};
