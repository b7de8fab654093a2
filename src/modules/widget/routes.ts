import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../shared/context.js';
import { AppError, ErrorCode } from '../../http/errors.js';
import { errorResponses, eventStreamResponse } from '../../http/schemas.js';
import { rateLimitRefusals } from '../../observability/metrics.js';
import { decryptSecret } from '../../shared/secrets.js';
import {
  answerChat,
  parseChatRequest,
  parseIdempotencyKey,
  requestFingerprint,
  ChatResponseSchema,
} from '../chat/index.js';
import { EngineRefusal } from '../../shared/refusal.js';
import { createHash } from 'node:crypto';
import { openEventStream as openStream } from '../../shared/sse.js';
import { noteChatStreamError } from '../../observability/metrics.js';
import {
  allowCors,
  authenticateVisitor,
  bearer,
  forbiddenOrigin,
  entryOf,
  identityClaims,
  keyringOf,
  preflightHeaders,
  requireOpen,
  requireOrigin,
  unauthorizedVisitor,
  visitorOf,
} from './access.js';
import { streamEvents } from './events.js';
import { availabilityOf, noteVisitor } from './visitor-service.js';
import { widgetMessageStream } from './message-stream.js';
import * as repo from './repository.js';
import { findBot } from '../bots/index.js';
import { deleteConversationsByIds } from '../conversations/index.js';
import {
  SessionBody,
  SessionSchema,
  TranscriptSchema,
  WidgetKeptMessageSchema,
  WidgetMessageBody,
} from './schema.js';
import { identitySecretContext, replyByEmail, serializeMessage } from './service.js';
import {
  issueVisitorToken,
  keyFingerprint,
  newVisitorId,
  readVisitorToken,
  verifyIdentityToken,
  type VisitorClaims,
} from './tokens.js';

const tags = ['widget'];
const security = [{ widgetVisitor: [] }];
const WINDOW_MS = 60_000;

/** Body of a widget message: 10000 characters and a choice fit easily. */
const MESSAGE_BODY_LIMIT = 64 * 1024;

type LimitName = 'visitor' | 'ip' | 'key';

interface Limit {
  name: LimitName;
  max: number;
  check: ReturnType<FastifyInstance['createRateLimit']>;
}

function tooMany(name: LimitName, max: number, retryAfter: number): AppError {
  rateLimitRefusals.inc({ limit: `widget_${name}` });
  const who = { visitor: 'Besucher', ip: 'Adresse', key: 'Widget' }[name];
  return new AppError(
    429,
    ErrorCode.rateLimited,
    `Zu viele Anfragen: höchstens ${max} Anfragen pro Minute und ${who} erlaubt. Bitte kurz warten (siehe Retry-After).`,
    {
      details: { limit: name, max },
      headers: { 'retry-after': String(retryAfter), 'ratelimit-policy': `${max};w=60` },
    },
  );
}

/**
 * Counts the request against each limit (in the shared store: Redis when configured) and sets
 * the RateLimit-* headers of the tightest one; the first limit exceeded answers 429 with
 * Retry-After.
 */
async function applyLimits(request: FastifyRequest, reply: FastifyReply, limits: Limit[]): Promise<void> {
  let tightest: { max: number; remaining: number; reset: number } | undefined;
  for (const limit of limits) {
    const result = await limit.check(request);
    if (result.isAllowed) continue;
    if (result.isExceeded) {
      reply.header('ratelimit-limit', result.max);
      reply.header('ratelimit-remaining', 0);
      reply.header('ratelimit-reset', result.ttlInSeconds);
      throw tooMany(limit.name, result.max, Math.max(1, result.ttlInSeconds));
    }
    if (!tightest || result.remaining < tightest.remaining) {
      tightest = { max: result.max, remaining: result.remaining, reset: result.ttlInSeconds };
    }
  }
  if (tightest) {
    reply.header('ratelimit-limit', tightest.max);
    reply.header('ratelimit-remaining', tightest.remaining);
    reply.header('ratelimit-reset', tightest.reset);
  }
}

/** Seconds until the next UTC midnight, when the daily budget starts again. */
function secondsToMidnightUtc(now = new Date()): number {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((midnight - now.getTime()) / 1000));
}

function budgetExhausted(): AppError {
  return new AppError(
    429,
    ErrorCode.rateLimited,
    'Der Chat hat sein Tageslimit an Nachrichten erreicht. Bitte morgen erneut versuchen.',
    {
      details: { code: 'widget_budget_exhausted' },
      headers: { 'retry-after': String(secondsToMidnightUtc()) },
    },
  );
}

/**
 * The widget's public endpoints under /v1/widget: visitor sessions, messages, the transcript,
 * the event stream and the visitor's deletion of their conversation. Authenticated by the
 * visitor token (sessions: by the publishable key), checked against the bot's origins on every
 * call; CORS answers only listed origins.
 */
export const widgetRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const limits = ctx.config.widget;
  const limit = (name: LimitName, max: number, keyOf: (request: FastifyRequest) => string): Limit => ({
    name,
    max,
    check: app.createRateLimit({
      max,
      timeWindow: WINDOW_MS,
      keyGenerator: (request) => `widget:${name}:${keyOf(request)}`,
    }),
  });
  const byIp = limit('ip', limits.rateLimitIp, (r) => r.ip);
  const byVisitor = limit('visitor', limits.rateLimitVisitor, (r) => {
    const { claims } = visitorOf(r);
    return `${claims.bot_id}:${claims.visitor_id}`;
  });
  const byKeyOfVisitor = limit('key', limits.rateLimitKey, (r) => visitorOf(r).settings.publishable_key);
  const byKeyOfBody = limit('key', limits.rateLimitKey, (r) =>
    String((r.body as { publishable_key?: unknown }).publishable_key),
  );
  const run = (request: FastifyRequest, reply: FastifyReply, ...checks: Limit[]) =>
    applyLimits(request, reply, checks);

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

  // CORS preflight: the browser sends neither token nor body, so an origin passes when an
  // enabled widget lists it; the call itself is then checked against its bot's own list.
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
      async (request, reply) => {
        const origin = requireOrigin(request);
        if (!(await repo.anyWidgetAllows(ctx.db, origin))) throw forbiddenOrigin(false);
        preflightHeaders(reply, origin);
        return reply.code(204).send();
      },
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
    async (request, reply) => {
      const origin = requireOrigin(request);
      const {
        publishable_key: publishableKey,
        identity_token: identityToken,
        visitor_id: claimed,
      } = request.body;
      const settings = publishableKey.startsWith('pk_')
        ? await repo.findByPublishableKey(ctx.db, publishableKey)
        : undefined;
      if (!settings) throw unauthorizedVisitor('publishable_key_invalid');
      const entry = entryOf(settings, origin, request, ctx.config.publicBaseUrl);
      if (!entry) throw forbiddenOrigin(false);
      allowCors(reply, origin);
      requireOpen(settings, entry);
      const keyring = keyringOf(ctx);

      let identity: { visitor_id: string; name?: string; email?: string } | undefined;
      if (identityToken !== undefined) {
        const secret = settings.identity_secret
          ? decryptSecret(keyring, settings.identity_secret, identitySecretContext(settings.bot_id))
          : undefined;
        identity = secret ? verifyIdentityToken(secret, identityToken) : undefined;
        if (!identity) {
          throw new AppError(401, ErrorCode.unauthorized, 'The identity token is invalid or expired', {
            details: { code: 'identity_invalid' },
          });
        }
      } else if (settings.verified_only) {
        throw new AppError(401, ErrorCode.unauthorized, 'This widget admits verified visitors only', {
          details: { code: 'identity_required' },
        });
      }

      let visitorId = identity?.visitor_id;
      if (!visitorId && claimed !== undefined) {
        // An unverified id is kept only for the holder of that visitor's own (refreshable) token.
        const token = bearer(request);
        const check = token ? readVisitorToken(keyring, token) : undefined;
        if (
          check?.ok &&
          !check.claims.verified &&
          check.claims.visitor_id === claimed &&
          check.claims.bot_id === settings.bot_id &&
          check.claims.origin === origin &&
          (check.claims.exp + limits.refreshWindowHours * 3600) * 1000 > Date.now()
        ) {
          visitorId = claimed;
        }
      }
      visitorId ??= newVisitorId();

      const claims: VisitorClaims = {
        tenant_id: settings.tenant_id,
        bot_id: settings.bot_id,
        visitor_id: visitorId,
        origin,
        verified: identity !== undefined,
        key: keyFingerprint(settings.publishable_key),
        exp: Math.floor(Date.now() / 1000) + limits.tokenTtlMinutes * 60,
        ...(identity?.name ? { name: identity.name } : {}),
        ...(identity?.email ? { email: identity.email } : {}),
        ...(identity ? identityClaims(keyring, settings) : {}),
      };
      const conversation = await repo.findOpenConversation(
        ctx.db,
        settings.tenant_id,
        settings.bot_id,
        visitorId,
      );
      await noteVisitor(ctx, claims, request, request.body.context);
      reply.code(201);
      return {
        token: issueVisitorToken(keyring, claims),
        expires_at: new Date(claims.exp * 1000).toISOString(),
        visitor_id: visitorId,
        verified: claims.verified,
        conversation_id: conversation?.id ?? null,
        bot: {
          name: settings.bot_name,
          language: settings.language,
          theme: settings.theme,
          greeting: settings.theme.greeting ?? null,
          availability: { ...availabilityOf(settings), reply_by_email: replyByEmail(ctx.config) },
        },
      };
    },
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
    async (request, reply) => {
      const { claims, settings } = visitorOf(request);
      const renewed = { ...claims, exp: Math.floor(Date.now() / 1000) + limits.tokenTtlMinutes * 60 };
      const conversation = await repo.findOpenConversation(
        ctx.db,
        claims.tenant_id,
        claims.bot_id,
        claims.visitor_id,
      );
      const bot = await findBot(ctx.db, claims.tenant_id, claims.bot_id);
      reply.code(201);
      return {
        token: issueVisitorToken(keyringOf(ctx), renewed),
        expires_at: new Date(renewed.exp * 1000).toISOString(),
        visitor_id: claims.visitor_id,
        verified: claims.verified,
        conversation_id: conversation?.id ?? null,
        bot: {
          name: bot?.name ?? '',
          language: settings.language,
          theme: settings.theme,
          greeting: settings.theme.greeting ?? null,
          availability: availabilityOf(settings),
        },
      };
    },
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
    async (request, reply) => {
      const { claims, settings } = visitorOf(request);
      const { text, choice } = request.body;
      const key = parseIdempotencyKey(request.headers['idempotency-key']);
      const input = parseChatRequest({
        message: text ?? (choice ? choice.item_id : ''),
        ...(choice ? { choice } : {}),
      });
      if (!(await repo.countDailyMessage(ctx.db, settings.bot_id, settings.daily_message_budget))) {
        throw budgetExhausted();
      }
      const open = await repo.findOpenConversation(
        ctx.db,
        claims.tenant_id,
        claims.bot_id,
        claims.visitor_id,
      );
      const inbound = {
        tenantId: claims.tenant_id,
        botId: claims.bot_id,
        input: {
          ...input,
          channel: 'widget' as const,
          senderId: claims.visitor_id,
          conversationId: open?.id ?? null,
          metadata: {
            widget: {
              origin: claims.origin,
              verified: claims.verified,
              ...(claims.name ? { name: claims.name } : {}),
              ...(claims.email ? { email: claims.email } : {}),
            },
          },
        },
        // A visitor's key is theirs alone: another visitor's same key neither replays nor blocks it.
        idempotencyKey: key
          ? `widget:${createHash('sha256').update(`${claims.visitor_id}:${key}`).digest('hex')}`
          : null,
        // The first attempt may open the conversation: a retry is compared by its message, not its conversation.
        ...(key
          ? {
              requestHash: requestFingerprint(claims.bot_id, {
                ...input,
                channel: 'widget',
                senderId: claims.visitor_id,
                conversationId: null,
                metadata: {},
              }),
            }
          : {}),
      };
      // Stream events carry message ids to resume from on /v1/widget/events.
      const anchorId = open ? await repo.lastMessageId(ctx.db, claims.tenant_id, open.id) : undefined;
      let answered;
      try {
        answered = await answerChat(ctx, inbound, request, reply, (target) =>
          widgetMessageStream({
            open: () => openStream(target),
            end: () => target.raw.end(),
            anchorId,
            replyId: (response) =>
              repo.lastMessageId(ctx.db, claims.tenant_id, response.conversation_id, 'assistant'),
            onError: (body) => noteChatStreamError(request, body.error),
          }),
        );
      } catch (error) {
        // People hold the conversation: the message is theirs (stored once, live in the inbox), the bot is silent.
        if (!(error instanceof EngineRefusal) || error.reason !== 'handed_over' || !error.kept) throw error;
        await noteVisitor(ctx, claims, request, request.body.context);
        return reply.code(202).send({
          status: 'handed_over' as const,
          conversation_id: error.kept.conversationId,
          message: {
            id: error.kept.messageId,
            from: 'visitor' as const,
            text: input.message,
            created_at: error.kept.createdAt.toISOString(),
          },
        });
      }
      await noteVisitor(ctx, claims, request, request.body.context);
      return answered;
    },
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
    async (request) => {
      const { claims } = visitorOf(request);
      const open = await repo.findOpenConversation(
        ctx.db,
        claims.tenant_id,
        claims.bot_id,
        claims.visitor_id,
      );
      if (!open) return { conversation_id: null, status: null, messages: [] };
      const messages = await repo.transcript(ctx.db, claims.tenant_id, open.id);
      return { conversation_id: open.id, status: open.status, messages: messages.map(serializeMessage) };
    },
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
    async (request, reply) => {
      const { claims } = visitorOf(request);
      await ctx.db.transaction(async (tx) => {
        const conversations = await repo.visitorConversations(
          tx,
          claims.tenant_id,
          claims.bot_id,
          claims.visitor_id,
        );
        await deleteConversationsByIds(
          tx,
          claims.tenant_id,
          conversations.map((c) => c.id),
        );
      });
      return reply.code(204).send();
    },
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
    async (request, reply) => {
      await streamEvents(ctx, request, reply);
    },
  );
};
