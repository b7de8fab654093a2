/**
 * The visitor's side of the widget (/v1/widget, routes.ts): the CORS preflight, starting and
 * refreshing a visitor session, a message to the bot through the conversation engine (channel
 * `widget`, with the channel's facts for its guards), the open conversation's transcript and
 * the visitor's deletion of their conversations.
 */
import { createHash } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../shared/context.js';
import { AppError, ErrorCode } from '../../http/errors.js';
import { noteChatStreamError } from '../../observability/metrics.js';
import { EngineRefusal } from '../../shared/refusal.js';
import { decryptSecret } from '../../shared/secrets.js';
import { openEventStream as openStream } from '../../shared/sse.js';
import { findBot } from '../bots/index.js';
import { answerChat, parseChatRequest, parseIdempotencyKey, requestFingerprint } from '../chat/index.js';
import {
  allowCors,
  bearer,
  entryOf,
  forbiddenOrigin,
  identityClaims,
  keyringOf,
  preflightHeaders,
  requireOpen,
  requireOrigin,
  unauthorizedVisitor,
  visitorOf,
} from './access.js';
import { widgetMessageStream } from './message-stream.js';
import * as repo from './repository.js';
import type { SessionBody, WidgetMessageBody } from './schema.js';
import { identitySecretContext, replyByEmail, serializeMessage } from './service.js';
import {
  issueVisitorToken,
  keyFingerprint,
  newVisitorId,
  readVisitorToken,
  verifyIdentityToken,
  type VisitorClaims,
} from './tokens.js';
import { availabilityOf, eraseVisitor, noteVisitor } from './visitor-service.js';

/**
 * CORS preflight: the browser sends neither token nor body, so an origin passes when an enabled
 * widget lists it; the call itself is then checked against its bot's own list.
 */
export async function preflight(ctx: AppContext, request: FastifyRequest, reply: FastifyReply) {
  const origin = requireOrigin(request);
  if (!(await repo.anyWidgetAllows(ctx.db, origin))) throw forbiddenOrigin(false);
  preflightHeaders(reply, origin);
  return reply.code(204).send();
}

/** Who the session is for: the identity token's verified visitor, or an anonymous one. */
function verifiedIdentity(
  ctx: AppContext,
  settings: repo.WidgetSettingsRow,
  identityToken: string | undefined,
): { visitor_id: string; name?: string; email?: string } | undefined {
  if (identityToken === undefined) {
    if (settings.verified_only) {
      throw new AppError(401, ErrorCode.unauthorized, 'This widget admits verified visitors only', {
        details: { code: 'identity_required' },
      });
    }
    return undefined;
  }
  const secret = settings.identity_secret
    ? decryptSecret(keyringOf(ctx), settings.identity_secret, identitySecretContext(settings.bot_id))
    : undefined;
  const identity = secret ? verifyIdentityToken(secret, identityToken) : undefined;
  if (!identity) {
    throw new AppError(401, ErrorCode.unauthorized, 'The identity token is invalid or expired', {
      details: { code: 'identity_invalid' },
    });
  }
  return identity;
}

/** An unverified id is kept only for the holder of that visitor's own (refreshable) token. */
function keptVisitorId(
  ctx: AppContext,
  request: FastifyRequest,
  settings: repo.WidgetSettingsRow,
  origin: string,
  claimed: string | undefined,
): string | undefined {
  if (claimed === undefined) return undefined;
  const token = bearer(request);
  const check = token ? readVisitorToken(keyringOf(ctx), token) : undefined;
  return check?.ok &&
    !check.claims.verified &&
    check.claims.visitor_id === claimed &&
    check.claims.bot_id === settings.bot_id &&
    check.claims.origin === origin &&
    (check.claims.exp + ctx.config.widget.refreshWindowHours * 3600) * 1000 > Date.now()
    ? claimed
    : undefined;
}

/** POST /v1/widget/sessions: a visitor session with the publishable key (201). */
export async function startSession(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  body: Static<typeof SessionBody>,
) {
  const origin = requireOrigin(request);
  const { publishable_key: publishableKey, identity_token: identityToken, visitor_id: claimed } = body;
  const settings = publishableKey.startsWith('pk_')
    ? await repo.findByPublishableKey(ctx.db, publishableKey)
    : undefined;
  if (!settings) throw unauthorizedVisitor('publishable_key_invalid');
  const entry = entryOf(settings, origin, request, ctx.config.publicBaseUrl);
  if (!entry) throw forbiddenOrigin(false);
  allowCors(reply, origin);
  requireOpen(settings, entry);
  const keyring = keyringOf(ctx);
  const identity = verifiedIdentity(ctx, settings, identityToken);
  const visitorId =
    identity?.visitor_id ?? keptVisitorId(ctx, request, settings, origin, claimed) ?? newVisitorId();

  const claims: VisitorClaims = {
    tenant_id: settings.tenant_id,
    bot_id: settings.bot_id,
    visitor_id: visitorId,
    origin,
    verified: identity !== undefined,
    key: keyFingerprint(settings.publishable_key),
    exp: Math.floor(Date.now() / 1000) + ctx.config.widget.tokenTtlMinutes * 60,
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
  await noteVisitor(ctx, claims, request, body.context);
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
}

/** POST /v1/widget/sessions/refresh: a new token for the same visitor (201). */
export async function refreshSession(ctx: AppContext, request: FastifyRequest, reply: FastifyReply) {
  const { claims, settings } = visitorOf(request);
  const renewed = { ...claims, exp: Math.floor(Date.now() / 1000) + ctx.config.widget.tokenTtlMinutes * 60 };
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
}

/**
 * POST /v1/widget/messages: the visitor's message through the conversation engine, in the
 * visitor's open conversation with the bot. While people hold it, 202 with the kept message.
 */
export async function sendMessage(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  body: Static<typeof WidgetMessageBody>,
) {
  const { claims, settings } = visitorOf(request);
  const { text, choice } = body;
  const key = parseIdempotencyKey(request.headers['idempotency-key']);
  const input = parseChatRequest({
    message: text ?? (choice ? choice.item_id : ''),
    ...(choice ? { choice } : {}),
  });
  const open = await repo.findOpenConversation(ctx.db, claims.tenant_id, claims.bot_id, claims.visitor_id);
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
    // The daily budget guard (limits.ts) counts the message.
    facts: { widget: { dailyBudget: settings.daily_message_budget } },
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
    await noteVisitor(ctx, claims, request, body.context);
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
  await noteVisitor(ctx, claims, request, body.context);
  return answered;
}

/** GET /v1/widget/conversation: the visitor's open conversation (to resume after a reload). */
export async function openTranscript(ctx: AppContext, request: FastifyRequest) {
  const { claims } = visitorOf(request);
  const open = await repo.findOpenConversation(ctx.db, claims.tenant_id, claims.bot_id, claims.visitor_id);
  if (!open) return { conversation_id: null, status: null, messages: [] };
  const messages = await repo.transcript(ctx.db, claims.tenant_id, open.id);
  return { conversation_id: open.id, status: open.status, messages: messages.map(serializeMessage) };
}

/** DELETE /v1/widget/conversation: the visitor deletes their conversations with the bot and their refused messages (204). */
export async function deleteVisitorConversations(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const { claims } = visitorOf(request);
  await ctx.db.transaction((tx) => eraseVisitor(tx, claims.tenant_id, claims.bot_id, claims.visitor_id));
  return reply.code(204).send();
}
