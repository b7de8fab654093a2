import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { notFound } from '../../http/errors.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import * as repo from './repository.js';
import { refusalsOfPerson } from '../chat/index.js';
import {
  DeletedSchema,
  IdentitySecretSchema,
  VisitorExportSchema,
  VisitorParams,
  WidgetSettingsBody,
  WidgetSettingsSchema,
} from './schema.js';
import { checkBusinessHours, eraseVisitor } from './visitor-service.js';
import {
  newPublishableKey,
  normalizeOrigins,
  rotateIdentitySecret,
  serializeMessage,
  serializeSettings,
  requireBot,
  settingsOf,
} from './service.js';

const tags = ['dashboard: widget'];
const security = SESSION_SECURITY;

/**
 * /api/bots/:id/widget: a bot's website widget in the dashboard: its settings, the publishable
 * key and the identity secret (rotation), and a visitor's data (export, deletion). Reading
 * needs `bot:view`, every change `bot:edit`.
 */
export const widgetSettingsRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const view = requireUser(ctx, 'bot:view');
  const edit = requireUser(ctx, 'bot:edit');

  app.get(
    '/api/bots/:id/widget',
    {
      onRequest: view,
      schema: {
        tags,
        operationId: 'getWidgetSettings',
        summary: "The bot's widget settings (created switched off on first read)",
        security,
        params: IdParams,
        response: { 200: WidgetSettingsSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const settings = await settingsOf(ctx.db, currentUser(request).tenantId, request.params.id);
      return serializeSettings(settings, ctx.config);
    },
  );

  app.put(
    '/api/bots/:id/widget',
    {
      onRequest: edit,
      schema: {
        tags,
        operationId: 'updateWidgetSettings',
        summary: "Change the bot's widget settings (fields left out stay as they are)",
        security,
        params: IdParams,
        body: WidgetSettingsBody,
        response: { 200: WidgetSettingsSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { tenantId } = currentUser(request);
      const body = request.body;
      const origins = body.allowed_origins === undefined ? undefined : normalizeOrigins(body.allowed_origins);
      checkBusinessHours(body.business_hours);
      const updated = await ctx.db.transaction(async (tx) => {
        await settingsOf(tx, tenantId, request.params.id);
        return repo.updateSettings(tx, tenantId, request.params.id, { ...body, allowed_origins: origins });
      });
      return serializeSettings(updated!, ctx.config);
    },
  );

  app.post(
    '/api/bots/:id/widget/publishable-key',
    {
      onRequest: edit,
      schema: {
        tags,
        operationId: 'rotateWidgetPublishableKey',
        summary: 'Replace the publishable key; sessions started with the old key end',
        security,
        params: IdParams,
        response: { 200: WidgetSettingsSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const { tenantId } = currentUser(request);
      const updated = await ctx.db.transaction(async (tx) => {
        await settingsOf(tx, tenantId, request.params.id);
        return repo.setPublishableKey(tx, tenantId, request.params.id, newPublishableKey());
      });
      return serializeSettings(updated!, ctx.config);
    },
  );

  app.post(
    '/api/bots/:id/widget/identity-secret',
    {
      onRequest: edit,
      schema: {
        tags,
        operationId: 'rotateWidgetIdentitySecret',
        summary: 'Create or replace the identity secret; the answer shows it this once',
        security,
        params: IdParams,
        response: { 200: IdentitySecretSchema, ...errorResponses(401, 403, 404, 503) },
      },
    },
    async (request) => {
      const secret = await rotateIdentitySecret(ctx, currentUser(request).tenantId, request.params.id);
      return { identity_secret: secret };
    },
  );

  app.get(
    '/api/bots/:id/widget/visitors/:visitorId/export',
    {
      onRequest: requireUser(ctx, 'conversation:view'),
      schema: {
        tags,
        operationId: 'exportWidgetVisitor',
        summary: "A visitor's widget conversations with the bot, with every message (data export)",
        security,
        params: VisitorParams,
        response: { 200: VisitorExportSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const { tenantId } = currentUser(request);
      const { id: botId, visitorId } = request.params;
      // A read: the bot is checked, its widget settings are not created.
      await requireBot(ctx.db, tenantId, botId);
      const conversations = await repo.visitorConversations(ctx.db, tenantId, botId, visitorId);
      const refusals = await refusalsOfPerson(ctx.db, tenantId, {
        senderId: visitorId,
        email: null,
        conversationIds: conversations.map((c) => c.id),
      });
      if (conversations.length === 0 && refusals.length === 0) throw notFound('Widget visitor');
      return {
        visitor_id: visitorId,
        bot_id: botId,
        refusals,
        conversations: await Promise.all(
          conversations.map(async (c) => ({
            id: c.id,
            status: c.status,
            created_at: c.created_at.toISOString(),
            metadata: c.metadata,
            messages: (await repo.transcript(ctx.db, tenantId, c.id)).map(serializeMessage),
          })),
        ),
      };
    },
  );

  app.delete(
    '/api/bots/:id/widget/visitors/:visitorId',
    {
      onRequest: edit,
      schema: {
        tags,
        operationId: 'deleteWidgetVisitor',
        summary:
          "Delete a visitor's widget conversations with the bot, their messages and the visitor's refused messages",
        security,
        params: VisitorParams,
        response: { 200: DeletedSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const { tenantId } = currentUser(request);
      const { id: botId, visitorId } = request.params;
      const deleted = await ctx.db.transaction(async (tx) => {
        await settingsOf(tx, tenantId, botId);
        const erased = await eraseVisitor(tx, tenantId, botId, visitorId);
        if (erased.conversations === 0 && erased.refusals === 0) throw notFound('Widget visitor');
        return erased.conversations;
      });
      return { deleted_conversations: deleted };
    },
  );
};
