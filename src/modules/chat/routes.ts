import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../shared/context.js';
import { requireApiKey, tenantOfKey } from '../auth/index.js';
import { CHAT_INVALID_TEXT } from '../../http/errors.js';
import { rateLimitFor, rateLimitPolicyHeader } from '../../http/rate-limit.js';
import { API_KEY_SECURITY } from '../../http/schemas.js';
import { chatTraceOf, observeChatResponse } from '../../observability/chat-trace.js';
import { answerChat } from './answer.js';
import { parseChatRequest, parseIdempotencyKey } from './request.js';
import { ChatBody, ChatParams, ChatResponseSchema, chatErrorResponses } from './schema.js';

/** 10000 characters of message plus metadata fit easily; more is refused before parsing. */
export const CHAT_BODY_LIMIT = 256 * 1024;

/** POST /api/bot-chat/:botId/chat: the chat endpoint of the specification. */
export const chatRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const max = ctx.config.chat.rateLimitMax;
  const verifyKey = requireApiKey(ctx, { allowHeader: true });
  const rateLimit = app.rateLimit(rateLimitFor('chat', { max }));
  app.post(
    '/api/bot-chat/:botId/chat',
    {
      // Order: authentication (onRequest) → rate limit (preParsing) → body → engine. The trace
      // times authentication and the rate limit (the first part of admission) from outside.
      onRequest: [
        async (request, reply) => {
          await chatTraceOf(request).stage('auth', async () =>
            verifyKey.call(app, request, reply, () => undefined),
          );
        },
        rateLimitPolicyHeader(max),
      ],
      preParsing: async (request, reply) => {
        await chatTraceOf(request).stage(
          'admission',
          () => rateLimit.call(app, request, reply),
          'rate_limit',
        );
      },
      // The request's log line carries tenant, bot, outcome, stage latencies and tokens; with
      // tracing on, the request becomes one trace.
      onResponse: observeChatResponse(ctx.tracing),
      config: {
        errorStyle: 'chat',
        invalidText: CHAT_INVALID_TEXT,
      },
      bodyLimit: CHAT_BODY_LIMIT,
      // The body is checked by parseChatRequest, which knows the specification's texts and order.
      attachValidation: true,
      schema: {
        operationId: 'chatWithBot',
        tags: ['chat'],
        summary: 'Send a message to a bot and get its reply',
        description:
          'Authenticates with the tenant API key (`Authorization: Bearer` or `x-api-key`). ' +
          'With `Accept: text/event-stream` the reply streams as server-sent events (`delta`, then `done` ' +
          'with the response object, or `error`). An `Idempotency-Key` header (24 h per tenant) replays ' +
          'the stored response. Rate limit: 60 requests per minute per API key (RateLimit-* headers).',
        security: API_KEY_SECURITY,
        params: ChatParams,
        body: ChatBody,
        response: {
          200: ChatResponseSchema,
          ...chatErrorResponses(400, 401, 403, 404, 409, 422, 429, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const inbound = {
        tenantId: tenantOfKey(request).tenantId,
        botId: request.params.botId,
        input: parseChatRequest(request.body),
        idempotencyKey: parseIdempotencyKey(request.headers['idempotency-key']),
      };
      return answerChat(ctx, inbound, request, reply);
    },
  );
};
