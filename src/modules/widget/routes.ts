import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../shared/context.js';
import { errorResponses, eventStreamResponse } from '../../http/schemas.js';
import { ChatResponseSchema } from '../chat/schema.js';
import { authenticateVisitor, requireOrigin } from './access.js';
import { streamEvents } from './events.js';
import { widgetLimits } from './limits.js';
import {
  SessionBody,
  SessionSchema,
  TranscriptSchema,
  WidgetKeptMessageSchema,
  WidgetMessageBody,
} from './schema.js';
import * as sessions from './session-service.js';

const tags = ['widget'];
const security = [{ widgetVisitor: [] }];

/** Body of a widget message: 10000 characters and a choice fit easily. */
const MESSAGE_BODY_LIMIT = 64 * 1024;

/**
 * The widget's public endpoints under /v1/widget: visitor sessions, messages, the transcript,
 * the event stream and the visitor's deletion of their conversation. Authenticated by the
 * visitor token (sessions: by the publishable key), checked against the bot's origins on every
 * call; CORS answers only listed origins.
 */
export const widgetRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { byIp, byVisitor, byKeyOfVisitor, byKeyOfBody, run } = widgetLimits(app, ctx);

  // Every widget response varies by Origin (CORS), and none is stored by a cache.
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith('/v1/widget/')) {
      reply.header('vary', 'Origin');
      // The widget runs on other sites: its answers may be read there (CORS decides who may).
      reply.header('cross-origin-resource-policy', 'cross-origin');
    }
  });

  const visitor = (options: { allowExpired?: boolean } = {}) =>
    async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
      await authenticateVisitor(ctx, request, reply, options);
    };

  // CORS preflight (session-service.ts): answered for origins an enabled widget lists.
  const paths = {
    '/v1/widget/sessions': 'widgetPreflightSessions',
    '/v1/widget/sessions/refresh': 'widgetPreflightRefresh',
    '/v1/widget/messages': 'widgetPreflightMessages',
    '/v1/widget/conversation': 'widgetPreflightConversation',
    '/v1/widget/events': 'widgetPreflightEvents',
  };
  for (const [path, operationId] of Object.entries(paths)) {
    app.options(
      path,
      {
        onRequest: async (request, reply) => run(request, reply, byIp),
        schema: {
          tags,
          operationId,
          summary: 'CORS preflight: allowed for origins an enabled widget lists',
          security: [],
          response: { 204: { type: 'null' }, ...errorResponses(403, 429) },
        },
      },
      async (request, reply) => sessions.preflight(ctx, request, reply),
    );
  }

  app.post(
    '/v1/widget/sessions',
    {
      onRequest: async (request, reply) => {
        requireOrigin(request);
        await run(request, reply, byIp);
      },
      preHandler: async (request, reply) => run(request, reply, byKeyOfBody),
      schema: {
        tags,
        operationId: 'createWidgetSession',
        summary: 'Start a visitor session with the publishable key',
        description:
          'Needs an `Origin` the bot lists. Without `identity_token` the visitor gets a new random id, unless the ' +
          'request carries (Authorization: Bearer) a still refreshable token of the same visitor. With ' +
          '`identity_token` (HS256, the bot’s identity secret) the id is the signed `visitor_id` and the ' +
          'conversation is shared across devices. The token lives 15–60 minutes (WIDGET_TOKEN_TTL_MINUTES).',
        security: [],
        body: SessionBody,
        response: { 201: SessionSchema, ...errorResponses(400, 401, 403, 429, 503) },
      },
    },
    async (request, reply) => sessions.startSession(ctx, request, reply, request.body),
  );

  app.post(
    '/v1/widget/sessions/refresh',
    {
      onRequest: [visitor({ allowExpired: true }), async (request, reply) => run(request, reply, byIp)],
      schema: {
        tags,
        operationId: 'refreshWidgetSession',
        summary: 'A new token for the same visitor (also shortly after the old one expired)',
        description:
          'The current token in `Authorization: Bearer`; accepted until WIDGET_REFRESH_WINDOW_HOURS after its expiry, ' +
          'as long as the publishable key was not rotated and the origin is still listed.',
        security,
        response: { 201: SessionSchema, ...errorResponses(401, 403, 429, 503) },
      },
    },
    async (request, reply) => sessions.refreshSession(ctx, request, reply),
  );

  app.post(
    '/v1/widget/messages',
    {
      onRequest: visitor(),
      preParsing: async (request, reply) => run(request, reply, byIp, byKeyOfVisitor, byVisitor),
      bodyLimit: MESSAGE_BODY_LIMIT,
      schema: {
        tags,
        operationId: 'sendWidgetMessage',
        summary:
          'Send the visitor’s message to the bot (JSON, or server-sent events with Accept: text/event-stream)',
        description:
          'The same conversation engine as the chat endpoint, channel `widget`, sender = the visitor id, in the ' +
          'visitor’s open conversation with the bot. `text` (1–10000 characters) or `choice` (an item of the ' +
          'reply’s `blocks`; send its title as `text` too). Streams `delta`, then `done` with the response and its ' +
          '`message_id`, or `error`; every event has an id (a message id to resume from on /v1/widget/events with ' +
          '`Last-Event-ID`: the deltas the conversation’s last message before, `done` the stored reply), and a ' +
          '`: ping` comment comes every 15 s. Limits per visitor, address and publishable key (RateLimit-* headers), and the bot’s daily budget. ' +
          'While people hold the conversation (hand-over) the message is stored for them and shown live in the inbox, the ' +
          'bot stays silent: 202 with the stored message (no model call, nothing of the quota used). An `Idempotency-Key` ' +
          'header (1–255 visible ASCII characters, one fresh key per message, the same on its retries; 24 h per visitor) ' +
          'stores and answers a message once: a retry gets the first answer again (header `Idempotent-Replayed: true`), ' +
          'the same key with another message 422, while the first attempt still runs 409. Without the header every ' +
          'request is a new message.',
        security,
        headers: Type.Object({
          'idempotency-key': Type.Optional(
            Type.String({
              description:
                'One fresh key per message, the same on its retries (1–255 visible ASCII characters)',
            }),
          ),
        }),
        body: WidgetMessageBody,
        response: {
          200: ChatResponseSchema,
          202: WidgetKeptMessageSchema,
          ...errorResponses(400, 401, 403, 404, 409, 422, 429, 503),
        },
      },
    },
    async (request, reply) => sessions.sendMessage(ctx, request, reply, request.body),
  );

  app.get(
    '/v1/widget/conversation',
    {
      onRequest: [visitor(), async (request, reply) => run(request, reply, byIp)],
      schema: {
        tags,
        operationId: 'getWidgetConversation',
        summary: 'The visitor’s open conversation with the bot (to resume after a reload)',
        security,
        response: { 200: TranscriptSchema, ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => sessions.openTranscript(ctx, request),
  );

  app.delete(
    '/v1/widget/conversation',
    {
      onRequest: [visitor(), async (request, reply) => run(request, reply, byIp)],
      schema: {
        tags,
        operationId: 'deleteWidgetConversation',
        summary: 'The visitor deletes their conversations with the bot (all messages)',
        security,
        response: { 204: { type: 'null' }, ...errorResponses(401, 403, 429) },
      },
    },
    async (request, reply) => sessions.deleteVisitorConversations(ctx, request, reply),
  );

  app.get(
    '/v1/widget/events',
    {
      onRequest: [visitor(), async (request, reply) => run(request, reply, byIp)],
      schema: {
        tags,
        operationId: 'streamWidgetEvents',
        summary: 'Server-sent events of the visitor’s open conversation (a person’s replies, status changes)',
        description:
          'Events: `message` ({id, from, text, created_at}, event id = message id), `status` ({status}), `ping` ' +
          '(heartbeat). `Last-Event-ID` (a message id) delivers the messages after it first. 404 while the ' +
          'visitor has no open conversation.',
        security,
        response: {
          200: eventStreamResponse('`message`, `status` and `ping` events'),
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request, reply) => streamEvents(ctx, request, reply),
  );
};
