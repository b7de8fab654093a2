import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import { ConnectionParams } from './schema.js';
import {
  connectionTemplates,
  conversationTemplates,
  refreshTemplates,
  serializeTemplate,
} from './template-service.js';

const TemplateParameter = Type.Object(
  {
    part: Type.Union([Type.Literal('header'), Type.Literal('body'), Type.Literal('button')]),
    kind: Type.Union(
      ['text', 'url', 'image', 'document', 'video'].map((k) => Type.Literal(k)),
      {
        description:
          "text; url: the end of a link (a URL button's, or a Twilio content's media link); image/document/video: the header's media as an https link",
      },
    ),
    key: Type.Union([Type.String(), Type.Null()], {
      description: 'The placeholder it fills: 1, 2 … or a named one (first_name); null for a media header',
    }),
    button_text: Type.Union([Type.String(), Type.Null()], { description: "A URL button's text" }),
    url: Type.Union([Type.String(), Type.Null()], {
      description: 'The link a url parameter completes, with its placeholder',
    }),
    example: Type.Union([Type.String(), Type.Null()], { description: "The provider's example value" }),
  },
  { title: 'ChannelTemplateParameter' },
);

const TemplateSchema = Type.Object(
  {
    name: Type.String(),
    language: Type.String({ description: 'e.g. de, en_US' }),
    status: Type.String({
      description: 'As the provider names it: APPROVED, PENDING, REJECTED, PAUSED, DISABLED …',
    }),
    category: Type.Union([Type.String(), Type.Null()], { description: 'MARKETING, UTILITY, AUTHENTICATION' }),
    header: Type.Union([Type.String(), Type.Null()], {
      description: "The header's text with its placeholders (null: no header, or a media header)",
    }),
    body: Type.String({ description: 'The body text with its placeholders {{1}}, {{2}} … or {{name}}' }),
    footer: Type.Union([Type.String(), Type.Null()]),
    parameter_count: Type.Integer({ minimum: 0, description: 'How many parameters a send needs' }),
    parameters: Type.Array(TemplateParameter, {
      description: 'What each parameter of a send fills, in the order the send lists them',
    }),
    sendable: Type.Boolean({
      description: 'APPROVED and made only of parts the inbox can fill (see unsupported)',
    }),
    unsupported: Type.Union([Type.String(), Type.Null()], {
      description: 'Why the inbox cannot send it, in words (e.g. a "copy code" button), or null',
    }),
    refreshed_at: Type.String({ format: 'date-time' }),
  },
  { title: 'ChannelTemplate' },
);
const TemplateList = Type.Object({ data: Type.Array(TemplateSchema) });

/**
 * WhatsApp templates: a connection's templates (read, refresh from the provider), the approved
 * ones of a conversation, (a person's template message is the inbox's: inbox/template.ts).
 */
export const templateRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const security = SESSION_SECURITY;
  const tags = ['dashboard: channel connections'];
  const withLog = (log: { warn(obj: object, msg: string): void }) => ({ ...ctx, log });

  app.get(
    '/api/bots/:id/connections/:connectionId/templates',
    {
      onRequest: requireUser(ctx, 'bot:view'),
      schema: {
        tags,
        operationId: 'listChannelTemplates',
        summary: "A WhatsApp connection's message templates as last read from the provider",
        security,
        params: ConnectionParams,
        response: { 200: TemplateList, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const { id, connectionId } = request.params;
      const { conn, rows } = await connectionTemplates(
        ctx.db,
        currentUser(request).tenantId,
        id,
        connectionId,
      );
      return { data: rows.map((row) => serializeTemplate(conn.kind, row)) };
    },
  );

  app.post(
    '/api/bots/:id/connections/:connectionId/templates/refresh',
    {
      onRequest: requireUser(ctx, 'bot:edit'),
      schema: {
        tags,
        operationId: 'refreshChannelTemplates',
        summary:
          "Reads the connection's templates from Meta (message_templates) or Twilio (Content API) anew; 503 in words when the provider refuses",
        security,
        params: ConnectionParams,
        response: { 200: TemplateList, ...errorResponses(401, 403, 404, 422, 503) },
      },
    },
    async (request) => {
      const { id, connectionId } = request.params;
      const { conn } = await connectionTemplates(ctx.db, currentUser(request).tenantId, id, connectionId);
      const rows = await refreshTemplates(withLog(request.log), conn);
      return { data: rows.map((row) => serializeTemplate(conn.kind, row)) };
    },
  );

  app.get(
    '/api/conversations/:id/channel/templates',
    {
      onRequest: requireUser(ctx, 'conversation:view'),
      schema: {
        tags: ['dashboard: inbox'],
        operationId: 'listConversationTemplates',
        summary:
          "The approved templates of a WhatsApp conversation's connection (empty for SMS); 404 for a conversation not on WhatsApp/SMS",
        security,
        params: IdParams,
        response: { 200: TemplateList, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const { kind, rows } = await conversationTemplates(
        ctx.db,
        currentUser(request).tenantId,
        request.params.id,
      );
      return { data: rows.map((row) => serializeTemplate(kind, row)) };
    },
  );
};
