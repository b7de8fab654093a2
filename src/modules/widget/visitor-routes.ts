import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../shared/context.js';
import { AppError, ErrorCode } from '../../http/errors.js';
import { errorResponses } from '../../http/schemas.js';
import {
  authenticateVisitor,
  forbiddenOrigin,
  preflightHeaders,
  requireOrigin,
  visitorOf,
} from './access.js';
import * as repo from './repository.js';
import {
  ReplyAddressBody,
  ReplyAddressSchema,
  TypingAccepted,
  VisitorRatingBody,
  VisitorRatingSchema,
} from './schema.js';
import { leaveReplyAddress, rateByVisitor, visitorTyping } from './visitor-service.js';

const tags = ['widget'];
const security = [{ widgetVisitor: [] }];

/**
 * The visitor's smaller calls under /v1/widget: typing, the address for a reply by e-mail
 * (outside business hours) and the satisfaction rating after a person closed the conversation.
 * Authenticated and checked like every widget call (visitor token, the bot's origins, CORS);
 * limited per address as the widget's other calls.
 */
export const widgetVisitorRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const max = ctx.config.widget.rateLimitIp;
  const byIp = app.createRateLimit({
    max,
    timeWindow: 60_000,
    keyGenerator: (request) => `widget:ip:${request.ip}`,
  });
  const limited = async (request: FastifyRequest, reply: FastifyReply) => {
    const result = await byIp(request);
    if (result.isAllowed || !result.isExceeded) return;
    const retryAfter = Math.max(1, result.ttlInSeconds);
    reply.header('retry-after', String(retryAfter));
    throw new AppError(
      429,
      ErrorCode.rateLimited,
      `Zu viele Anfragen: höchstens ${max} Anfragen pro Minute und Adresse erlaubt. Bitte kurz warten (siehe Retry-After).`,
      { details: { limit: 'ip', max } },
    );
  };
  const visitor = async (request: FastifyRequest, reply: FastifyReply) => {
    await authenticateVisitor(ctx, request, reply, {});
    await limited(request, reply);
  };

  const paths = {
    '/v1/widget/typing': 'widgetPreflightTyping',
    '/v1/widget/reply-address': 'widgetPreflightReplyAddress',
    '/v1/widget/rating': 'widgetPreflightRating',
  };
  for (const [path, operationId] of Object.entries(paths)) {
    app.options(
      path,
      {
        onRequest: limited,
        schema: {
          tags,
          operationId,
          summary: 'CORS preflight: allowed for origins an enabled widget lists',
          security: [],
          response: { 204: { type: 'null' }, ...errorResponses(403, 429) },
        },
      },
      async (request, reply) => {
        const origin = requireOrigin(request);
        if (!(await repo.anyWidgetAllows(ctx.db, origin))) throw forbiddenOrigin(false);
        preflightHeaders(reply, origin);
        return reply.code(204).send();
      },
    );
  }

  app.post(
    '/v1/widget/typing',
    {
      onRequest: visitor,
      schema: {
        tags,
        operationId: 'widgetVisitorTyping',
        summary: 'The visitor is typing: the inbox shows it (send at most every few seconds)',
        description:
          'Reaches open inbox streams as a `typing` event {conversation_id, from: "visitor"}; nothing is stored. ' +
          '404 while the visitor has no open conversation.',
        security,
        response: { 200: TypingAccepted, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      await visitorTyping(ctx, visitorOf(request).claims);
      return { ok: true };
    },
  );

  app.post(
    '/v1/widget/reply-address',
    {
      onRequest: visitor,
      schema: {
        tags,
        operationId: 'setWidgetReplyAddress',
        summary: 'The visitor’s e-mail address for a person’s reply (asked outside business hours)',
        description:
          'The address becomes the contact’s (found or created by it; a verified visitor keeps the identity’s) and ' +
          'every later reply of a person in the open conversation is also sent there by e-mail through the outbox ' +
          '(the service’s SMTP_URL). 409 `reply_email_off` when the service has no SMTP: nothing is stored, and ' +
          'the session’s `availability.reply_by_email` is false so the widget does not ask.',
        security,
        body: ReplyAddressBody,
        response: { 200: ReplyAddressSchema, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => leaveReplyAddress(ctx, visitorOf(request).claims, request.body.email),
  );

  app.post(
    '/v1/widget/rating',
    {
      onRequest: visitor,
      schema: {
        tags,
        operationId: 'rateWidgetConversation',
        summary: 'The visitor’s satisfaction rating (1–5, a comment) after a person closed the conversation',
        description:
          'Stored as the conversation’s satisfaction rating (a later one replaces it) and reported as the ' +
          '`satisfaction.rated` webhook event. 409 while the conversation is open or was not with a person.',
        security,
        body: VisitorRatingBody,
        response: { 200: VisitorRatingSchema, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => rateByVisitor(ctx, visitorOf(request).claims, request.body),
  );
};
