import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { onRequestHookHandler } from 'fastify';
import type { AppContext } from '../../shared/context.js';
import { requireApiKey, requireUser, currentUser, tenantOfKey, apiKeyCode } from '../auth/index.js';
import { AppError, CHAT_TEXT, unauthorized } from '../../http/errors.js';
import { API_KEY_SECURITY, IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import {
  endConversation,
  escalateConversation,
  rateConversation,
  reopenConversation,
  type TransitionResult,
  serializeLifecycleConversation,
} from './lifecycle.js';
import { recordLead } from './lead.js';
import {
  ConversationEndedBody,
  EscalationBody,
  LeadBody,
  LeadResponse,
  RatingBody,
  TransitionResponse,
} from '../webhooks/index.js';

const tags = ['conversation lifecycle'];

/** The key check speaks the chat's German texts; these endpoints answer `{error: code, message}`. */
const UNAUTHORIZED_MESSAGES: Record<string, string> = {
  [CHAT_TEXT.keyRequired]: 'Send the tenant API key as Authorization: Bearer <key> or x-api-key',
  [CHAT_TEXT.keyInvalid]: 'The API key is invalid or has been revoked',
  [CHAT_TEXT.keyExpired]: 'The API key has expired',
};

function requireTenantKey(ctx: AppContext): onRequestHookHandler {
  const verify = requireApiKey(ctx, { allowHeader: true });
  return async function (request, reply) {
    try {
      await verify.call(this, request, reply, () => undefined);
    } catch (error) {
      if (error instanceof AppError && error.statusCode === 401) {
        throw unauthorized(UNAUTHORIZED_MESSAGES[error.error] ?? error.message, {
          code: apiKeyCode(error.error),
        });
      }
      throw error;
    }
  };
}

function transition(result: TransitionResult) {
  return { conversation: serializeLifecycleConversation(result.conversation), changed: result.changed };
}

/**
 * Inbound lifecycle webhooks, called by the tenant's own systems with the tenant API key
 * (Bearer or x-api-key), and the dashboard's reopen action.
 */
export const lifecycleRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const auth = requireTenantKey(ctx);
  const responses = (extra: number[] = []) => ({
    200: TransitionResponse,
    ...errorResponses(400, 401, 404, ...extra),
  });

  app.post(
    '/webhooks/conversation-ended',
    {
      onRequest: auth,
      schema: {
        operationId: 'endConversation',
        tags,
        summary: 'End a conversation (emits conversation.ended); ending an ended one changes nothing',
        security: API_KEY_SECURITY,
        body: ConversationEndedBody,
        response: responses(),
      },
    },
    async (request) => {
      const { conversation_id, reason } = request.body;
      return transition(
        await endConversation(ctx.db, tenantOfKey(request).tenantId, conversation_id, { reason }),
      );
    },
  );

  app.post(
    '/webhooks/escalation-triggered',
    {
      onRequest: auth,
      schema: {
        operationId: 'escalateConversation',
        tags,
        summary: 'Hand a conversation over to a human: the bot stops answering in it until it is reopened',
        security: API_KEY_SECURITY,
        body: EscalationBody,
        response: responses([409]),
      },
    },
    async (request) => {
      const { conversation_id, reason } = request.body;
      return transition(
        await escalateConversation(ctx.db, tenantOfKey(request).tenantId, conversation_id, { reason }),
      );
    },
  );

  app.post(
    '/webhooks/satisfaction-rating',
    {
      onRequest: auth,
      schema: {
        operationId: 'rateConversation',
        tags,
        summary: 'Store a 1–5 rating with an optional comment (emits satisfaction.rated)',
        security: API_KEY_SECURITY,
        body: RatingBody,
        response: responses(),
      },
    },
    async (request) => {
      const { conversation_id, rating, comment } = request.body;
      return transition(
        await rateConversation(ctx.db, tenantOfKey(request).tenantId, conversation_id, { rating, comment }),
      );
    },
  );

  app.post(
    '/webhooks/lead-generated',
    {
      onRequest: auth,
      schema: {
        operationId: 'recordLead',
        tags,
        summary: 'Record the lead of a conversation as a contact, created or updated (emits lead.generated)',
        security: API_KEY_SECURITY,
        body: LeadBody,
        response: { 200: LeadResponse, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { conversation_id, ...lead } = request.body;
      const result = await recordLead(ctx.db, tenantOfKey(request).tenantId, conversation_id, lead);
      return {
        contact: {
          ...result.contact,
          created_at: result.contact.created_at.toISOString(),
          updated_at: result.contact.updated_at.toISOString(),
        },
        created: result.created,
        conversation_id: result.conversationId,
      };
    },
  );

  app.post(
    '/api/conversations/:id/reopen',
    {
      onRequest: requireUser(ctx, 'bot:edit'),
      schema: {
        operationId: 'reopenConversation',
        tags,
        summary: 'Reopen an ended or handed-over conversation: the bot answers in it again',
        security: SESSION_SECURITY,
        params: IdParams,
        response: { 200: TransitionResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) =>
      transition(await reopenConversation(ctx.db, currentUser(request).tenantId, request.params.id)),
  );
};
