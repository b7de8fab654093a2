import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { SESSION_SECURITY } from '../../http/schemas.js';
import { chatTraceOf, observeChatResponse } from '../../observability/chat-trace.js';
import { answerChat } from './answer.js';
import { parseChatRequest } from './request.js';
import { ChatBody, ChatResponseSchema, chatErrorResponses } from './schema.js';

/** Sender id of the dashboard's test conversations, so they can be told apart in the list. */
export const TEST_CHAT_SENDER = 'dashboard-test';

/**
 * POST /api/bots/:id/test-chat: the dashboard's test chat. The same conversation engine and
 * delivery as the chat endpoint (bot checks, history, knowledge, quota, streaming, disconnect),
 * authenticated by the dashboard session instead of the tenant API key, so staff can talk to a
 * bot without handling the key.
 */
export const testChatRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const checkUser = requireUser(ctx, 'bot:edit');
  app.post(
    '/api/bots/:id/test-chat',
    {
      onRequest: async (request, reply) => {
        await chatTraceOf(request).stage('auth', async () =>
          checkUser.call(app, request, reply, () => undefined),
        );
      },
      // The same log fields and trace as the chat endpoint.
      onResponse: observeChatResponse(ctx.tracing),
      config: { errorStyle: 'chat' },
      attachValidation: true,
      schema: {
        operationId: 'testChatWithBot',
        tags: ['chat'],
        summary: 'Talk to a bot from the dashboard, as a caller of the chat endpoint would',
        description:
          'Same rules, texts and response as `POST /api/bot-chat/:botId/chat` (quota, history, knowledge; ' +
          '`Accept: text/event-stream` streams), authenticated by the dashboard session (`bot:edit`). ' +
          'The conversation is stored with sender_id `dashboard-test` unless another is given.',
        security: SESSION_SECURITY,
        params: Type.Object({ id: Type.String({ description: 'UUID of a bot of the tenant' }) }),
        body: ChatBody,
        response: {
          200: ChatResponseSchema,
          ...chatErrorResponses(400, 401, 403, 404, 409, 422, 429, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const input = parseChatRequest(request.body);
      const inbound = {
        tenantId: currentUser(request).tenantId,
        botId: request.params.id,
        input: { ...input, senderId: input.senderId ?? TEST_CHAT_SENDER },
        idempotencyKey: null,
        test: true,
      };
      return answerChat(ctx, inbound, request, reply);
    },
  );
};
