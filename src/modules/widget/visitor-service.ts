/**
 * The widget's visitor as a person: a verified identity becomes the contact of their widget
 * conversations; what the widget tells of the visitor (page, language, browser) is kept for the
 * inbox; typing reaches the inbox; outside business hours the visitor leaves an e-mail address
 * that gets a person's replies (outbox kind `widget.email`); after a person closed the
 * conversation the visitor rates it (the specification's satisfaction rating).
 */
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../shared/context.js';
import type { Queryable } from '../../db/database.js';
import { fanoutOf, tenantTopic } from '../../coordination/fanout.js';
import { badRequest, conflict, notFound } from '../../http/errors.js';
import { isUuid } from '../../shared/ids.js';
import { mailerFor } from '../auth/index.js';
import { contactOfVerifiedVisitor } from '../contacts/index.js';
import {
  deleteConversationsByIds,
  rateConversation,
  linkSenderConversations,
} from '../conversations/index.js';
import { forgetRefusalsOfPerson } from '../chat/index.js';
import { enqueue, type OutboxSender } from '../outbox/index.js';
import { availability, hoursProblem, type Availability, type BusinessHours } from './business-hours.js';
import * as repo from './repository.js';
import { replyByEmail } from './service.js';
import type { VisitorClaims } from './tokens.js';

export const WIDGET_EMAIL = 'widget.email';

/**
 * Deletes what the service keeps of a widget visitor with a bot, inside the caller's transaction:
 * their conversations (with messages and notes) and their refused messages that opened no
 * conversation (the others go with theirs). Returns how many of each went.
 */
export async function eraseVisitor(
  tx: Queryable,
  tenantId: string,
  botId: string,
  visitorId: string,
): Promise<{ conversations: number; refusals: number }> {
  const conversations = await repo.visitorConversations(tx, tenantId, botId, visitorId);
  const refusals = await forgetRefusalsOfPerson(tx, tenantId, { senderId: visitorId, email: null });
  return {
    conversations: await deleteConversationsByIds(
      tx,
      tenantId,
      conversations.map((c) => c.id),
    ),
    refusals,
  };
}

/** What the widget sends along about the visitor (all optional). */
export interface VisitorContextInput {
  page_url?: string | undefined;
  page_title?: string | undefined;
  language?: string | undefined;
}

/** 400 when business hours are malformed (an unknown time zone, a span that closes before it opens). */
export function checkBusinessHours(hours: BusinessHours | null | undefined): void {
  const problem = hours ? hoursProblem(hours) : undefined;
  if (problem) throw badRequest(problem, { code: 'field_format', field: 'business_hours' });
}

/** Whether people answer now, by the bot's business hours. */
export function availabilityOf(settings: Pick<repo.WidgetSettingsRow, 'business_hours'>): Availability {
  return availability(settings.business_hours, new Date());
}

const clip = (value: string | undefined, max: number) =>
  value === undefined || value.trim() === '' ? null : value.trim().slice(0, max);

/** Only web addresses count as the visitor's page. */
function pageUrl(value: string | undefined): string | null {
  const url = clip(value, 2000);
  return url && /^https?:\/\//i.test(url) ? url : null;
}

/**
 * At session start and after each message: a verified visitor's contact is found or created (by
 * the identity's e-mail, else the visitor id) and their widget conversations with the bot are
 * linked to it; the open conversation keeps the page, language and browser the widget reported.
 */
export async function noteVisitor(
  ctx: Pick<AppContext, 'db'>,
  claims: VisitorClaims,
  request: FastifyRequest,
  context: VisitorContextInput | undefined,
): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    if (claims.verified) {
      const contact = await contactOfVerifiedVisitor(tx, claims.tenant_id, {
        visitorId: claims.visitor_id,
        name: claims.name ?? null,
        email: claims.email ?? null,
      });
      await linkSenderConversations(
        tx,
        claims.tenant_id,
        { botId: claims.bot_id, channel: 'widget', senderId: claims.visitor_id },
        contact.id,
      );
    }
    const open = await repo.findOpenConversation(tx, claims.tenant_id, claims.bot_id, claims.visitor_id);
    const agent = request.headers['user-agent'];
    if (open) {
      await repo.saveVisitorContext(tx, claims.tenant_id, open.id, {
        page_url: pageUrl(context?.page_url),
        page_title: clip(context?.page_title, 300),
        language: clip(context?.language, 35),
        user_agent: clip(typeof agent === 'string' ? agent : undefined, 500),
      });
    }
  });
}

/** The visitor types: the inbox hears it (nothing is stored). 404 without an open conversation. */
export async function visitorTyping(ctx: Pick<AppContext, 'db' | 'coordination'>, claims: VisitorClaims) {
  const open = await repo.findOpenConversation(ctx.db, claims.tenant_id, claims.bot_id, claims.visitor_id);
  if (!open) throw notFound('Conversation');
  await fanoutOf(ctx.coordination).publish(tenantTopic(claims.tenant_id), {
    type: 'typing',
    conversation_id: open.id,
    from: 'visitor',
  });
}

/**
 * The visitor's address for a person's reply by e-mail: becomes the contact's (found or created
 * by the address) and the conversation's reply address. 404 without an open conversation.
 */
export async function leaveReplyAddress(
  ctx: Pick<AppContext, 'db' | 'config'>,
  claims: VisitorClaims,
  email: string,
): Promise<{ email: string }> {
  // Without the service's SMTP no reply could ever reach the address: refused, nothing stored.
  if (!replyByEmail(ctx.config)) {
    throw conflict('Antworten per E-Mail sind hier nicht eingerichtet; ein Mensch antwortet hier im Chat.', {
      code: 'reply_email_off',
    });
  }
  const address = email.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address)) {
    throw badRequest('Das ist keine gültige E-Mail-Adresse.', { code: 'field_format', field: 'email' });
  }
  await ctx.db.transaction(async (tx) => {
    const open = await repo.findOpenConversation(tx, claims.tenant_id, claims.bot_id, claims.visitor_id);
    if (!open) throw notFound('Conversation');
    const contact = await contactOfVerifiedVisitor(tx, claims.tenant_id, {
      visitorId: claims.visitor_id,
      name: claims.name ?? null,
      email: claims.verified && claims.email ? claims.email : address,
    });
    await linkSenderConversations(
      tx,
      claims.tenant_id,
      { botId: claims.bot_id, channel: 'widget', senderId: claims.visitor_id },
      contact.id,
    );
    await repo.saveReplyAddress(tx, claims.tenant_id, open.id, address);
  });
  return { email: address };
}

/**
 * The visitor's satisfaction rating (1–5, a comment) of their latest conversation, once a person
 * closed it: stored as the conversation's rating and reported as `satisfaction.rated`. 409 while
 * the conversation is open or was never with a person; 404 without a conversation.
 */
export async function rateByVisitor(
  ctx: Pick<AppContext, 'db'>,
  claims: VisitorClaims,
  input: { rating: number; comment?: string | undefined },
) {
  const latest = await repo.findLatestConversation(
    ctx.db,
    claims.tenant_id,
    claims.bot_id,
    claims.visitor_id,
  );
  if (!latest) throw notFound('Conversation');
  if (latest.status !== 'ended' || latest.handover_at === null) {
    throw conflict('Bewerten lässt sich ein Gespräch, nachdem ein Mensch es beendet hat.', {
      code: 'conversation_not_closed',
    });
  }
  const comment = input.comment?.trim() ? input.comment.trim() : null;
  const { conversation } = await rateConversation(ctx.db, claims.tenant_id, latest.id, {
    rating: input.rating,
    comment,
  });
  return { conversation_id: conversation.id, rating: input.rating, comment };
}

/**
 * A person's reply in a widget conversation whose visitor left an address: queued as an e-mail
 * (send-once key per message) in the transaction that stores the reply.
 */
export async function queueReplyEmail(
  tx: Queryable,
  tenantId: string,
  conversationId: string,
  messageId: string,
): Promise<void> {
  if (!(await repo.findReplyAddress(tx, tenantId, conversationId))) return;
  await enqueue(tx, tenantId, [
    {
      kind: WIDGET_EMAIL,
      idempotencyKey: `${WIDGET_EMAIL}:${messageId}`,
      payload: { conversation_id: conversationId, message_id: messageId },
    },
  ]);
}

/**
 * Sender of `widget.email`: the person's reply to the visitor's address over the deployment's
 * SMTP (SMTP_URL). Without SMTP, or when the conversation or message is gone, it is permanent.
 */
export function widgetEmailSender(ctx: Pick<AppContext, 'db' | 'config'>): OutboxSender {
  return {
    kind: WIDGET_EMAIL,
    maxAttempts: 8,
    attemptTimeoutMs: 30_000,
    async send(message) {
      const started = Date.now();
      const payload = message.payload as { conversation_id?: unknown; message_id?: unknown };
      const permanent = (reason: string) => ({
        verdict: { kind: 'permanent' as const, reason },
        durationMs: 0,
      });
      if (!isUuid(payload.conversation_id) || !isUuid(payload.message_id)) {
        return permanent('payload needs conversation_id and message_id');
      }
      const send = mailerFor(ctx.config);
      if (!send) return permanent('SMTP_URL is not set');
      const to = await repo.findReplyAddress(ctx.db, message.tenant_id, payload.conversation_id);
      const row = await repo.findMessage(
        ctx.db,
        message.tenant_id,
        payload.conversation_id,
        payload.message_id,
      );
      if (!to || !row) return permanent('conversation or message is gone');
      try {
        await send({
          to,
          subject: `Antwort von ${row.author_name ?? 'unserem Team'} / Reply from ${row.author_name ?? 'our team'}`,
          text: `${row.content}\n`,
        });
        return { verdict: { kind: 'sent' }, durationMs: Date.now() - started };
      } catch (error) {
        return {
          verdict: { kind: 'failed' },
          error: String(error).slice(0, 200),
          durationMs: Date.now() - started,
        };
      }
    },
  };
}

/** What the widget last told of the visitor of a conversation, for the inbox; undefined when nothing. */
export async function visitorContextOf(db: Queryable, tenantId: string, conversationId: string) {
  return repo.findVisitorContext(db, tenantId, conversationId);
}
