/**
 * One arrived mail, whatever connector brought it: stored once, checked for robots, stripped
 * of quotes, matched to its thread, and answered through the conversation engine. The reply's
 * outbox row, its own Message-ID and the mail's new state are written in the exchange's one
 * transaction, so the reply goes out exactly when the exchange is stored — once.
 */
import { createHash } from 'node:crypto';
import type { AppContext } from '../../../shared/context.js';
import type { Queryable } from '../../../db/database.js';
import { AppError } from '../../../http/errors.js';
import { EngineRefusal } from '../../../shared/refusal.js';
import { converse } from '../../chat/pipeline/engine.js';
import type { ChannelDelivery, OutboundReply } from '../../chat/pipeline/types.js';
import { detectLanguage } from '../../../shared/language.js';
import type { MailboxRow } from '../../mailboxes/repository.js';
import { secretStoreFor } from '../../mailboxes/secret-store.js';
import { enqueue } from '../../outbox/service.js';
import { contactOfMailPerson } from '../../contacts/service.js';
import * as repo from './repository.js';
import { readAttachments, type InboundAttachment } from './attachments.js';
import type { MailInput } from '../../email/mail.js';
import { replyTargets, type AddressFields, type MailAddress } from '../../email/addresses.js';
import { renderMailReply } from '../../email/format.js';
import { readDeliveryReport } from '../../email/dsn.js';
import { stripReply } from '../../email/quotes.js';
import { isAutomated } from '../../email/robots.js';
import {
  bareId,
  chooseThread,
  OWN_MESSAGE_ID_LOCAL,
  ownMessageId,
  replyHeaders,
  threadCandidates,
  type KnownMessage,
} from '../../email/threading.js';

/** Before the attachments' text in the message the bot reads. */
const ATTACHMENTS_LEAD = 'Text der Anhänge:';

/** The outbox kind of e-mail replies (the bot's and a person's). */
export const EMAIL_REPLY_KIND = 'email.reply';

/**
 * The outbox message of an outbound mail row: one payload, `{outbound_id}`, for the bot's reply
 * (send-once key per received mail) and a person's (per message, sender.ts).
 */
export async function enqueueMail(tx: Queryable, tenantId: string, outboundId: string, key: string) {
  await enqueue(tx, tenantId, [
    {
      kind: EMAIL_REPLY_KIND,
      idempotencyKey: `${EMAIL_REPLY_KIND}:${key}`,
      payload: { outbound_id: outboundId },
    },
  ]);
}

export type { InboundAttachment } from './attachments.js';

export interface InboundMail {
  /** With angle brackets; a mail without one gets a stable id from its content. */
  messageId: string;
  /** The sender's address (lower case) as the connector read it, for the robot checks. */
  from: string | null;
  /**
   * The address headers as the connector has them (From, Reply-To, Cc), parsed again here with
   * the mail parser's address parser to decide who a reply goes to. Without it, `from` alone.
   */
  addresses?: AddressFields;
  /** The mail as received (RFC 5322), kept for download and for answering it later. */
  raw?: Buffer;
  /** Recipients (To and Cc, lower case). */
  to?: string[];
  subject: string | null;
  inReplyTo: string | null;
  references: string[];
  text: string;
  html?: string | null;
  /** Header values by lower-case name, every value of a repeated header kept. */
  headers: Record<string, readonly string[]>;
  contentType: string;
  /** The provider's own id of the mail (Graph message id), for replying and marking read. */
  providerId?: string;
  /** A reason known before reading the mail (e.g. `too_large`): stored, not answered. */
  skipReason?: string;
  attachments?: InboundAttachment[];
}

export type InboundOutcome =
  | { status: 'answered'; inboundId: string; conversationId: string }
  | { status: 'skipped'; inboundId: string; reason: string }
  | { status: 'failed'; inboundId: string; reason: string }
  | { status: 'duplicate'; inboundId: string }
  /** Its turn is still reserved (an instance died inside it): left for a later round, not settled. */
  | { status: 'deferred'; inboundId: string; reason: string };

export function bodyHash(text: string): string {
  return createHash('sha256').update(text.replace(/\r\n/g, '\n').trim()).digest('hex');
}

function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}

const MESSAGE_ID_PURPOSE = 'email-message-id';

/** The HMAC secret of our Message-IDs (derived from the service's current secret key). */
export function messageIdSecret(ctx: Pick<AppContext, 'config'>): string {
  return secretStoreFor(ctx.config).hmacKey(MESSAGE_ID_PURPOSE).toString('hex');
}

/** Those of the other listed keys: after a rotation, replies to our earlier mails still thread. */
function previousMessageIdSecrets(ctx: AppContext): string[] {
  return secretStoreFor(ctx.config)
    .previousHmacKeys(MESSAGE_ID_PURPOSE)
    .map((key) => key.toString('hex'));
}

/** The shape the pure e-mail decisions read. */
export function mailInput(mail: InboundMail): MailInput {
  return {
    headers: mail.headers,
    from: mail.from?.toLowerCase() ?? null,
    replyTo: null,
    to: mail.to ?? [],
    subject: mail.subject ?? '',
    contentType: mail.contentType,
    text: mail.text,
    html: mail.html ?? null,
  };
}

async function storeOnce(
  db: Queryable,
  mailbox: MailboxRow,
  mail: InboundMail,
  hash: string,
): Promise<repo.StoredInbound> {
  // PostgreSQL's text takes no NUL character: one in a mail must not make it unstorable.
  const clean = (value: string | null | undefined) => value?.replaceAll('\u0000', '') ?? null;
  const inserted = await repo.insertInbound(db, {
    tenantId: mailbox.tenant_id,
    mailboxId: mailbox.id,
    messageId: clean(mail.messageId)!.slice(0, 998),
    bodyHash: hash,
    from: clean(mail.from)?.slice(0, 320) ?? null,
    subject: clean(mail.subject)?.slice(0, 998) ?? null,
    inReplyTo: clean(mail.inReplyTo)?.slice(0, 998) ?? null,
    references: mail.references.slice(-50).map((r) => clean(r)!.slice(0, 998)),
    text: clean(mail.text)!,
    providerId: mail.providerId ?? null,
    raw: mail.raw ?? null,
  });
  if (inserted) return inserted;
  const existing = await repo.findInbound(db, mailbox.id, clean(mail.messageId)!.slice(0, 998), hash);
  if (!existing) throw new Error('inbound mail vanished between insert and select');
  return existing;
}

async function markSkipped(
  db: Queryable,
  id: string,
  status: 'skipped' | 'failed',
  reason: string,
  conversationId: string | null = null,
): Promise<void> {
  await repo.settleInbound(db, id, status, reason.slice(0, 200), conversationId);
}

/**
 * What the store holds for the ids a mail refers to: our replies and received mails of this
 * tenant's conversations with this bot, each with the conversation's participants (its sender
 * and everyone who wrote in it). The decision (chooseThread) checks tenant and HMAC tags.
 */
async function knownMessages(
  db: Queryable,
  mailbox: MailboxRow,
  ids: string[],
): Promise<(KnownMessage & { ended: boolean })[]> {
  if (ids.length === 0) return [];
  const bracketed = ids.map((id) => `<${bareId(id)}>`);
  const rows = await repo.findKnownMessages(db, mailbox.tenant_id, mailbox.bot_id, bracketed);
  return rows.map((r) => ({
    messageId: r.message_id,
    tenantId: mailbox.tenant_id,
    conversationId: r.conversation_id,
    participants: r.participants,
    ended: r.status === 'ended',
  }));
}

/** Who a reply goes to, decided once per mail (Reply-To, From, the Cc kept). */
export interface Recipients {
  to: MailAddress;
  cc: MailAddress[];
}

/** The engine's output port for a mail: the reply's outbound row and outbox message, in the exchange's transaction. */
function mailDelivery(
  ctx: AppContext,
  mailbox: MailboxRow,
  mail: InboundMail,
  inboundId: string,
  strippedText: string,
  recipients: Recipients,
): ChannelDelivery {
  return {
    async enqueue(tx: Queryable, reply: OutboundReply) {
      const messageId = ownMessageId(
        domainOf(mailbox.address),
        mailbox.tenant_id,
        reply.conversationId,
        messageIdSecret(ctx),
      );
      const threading = replyHeaders(
        {
          messageId: mail.messageId,
          references: mail.references,
          inReplyTo: mail.inReplyTo ? [mail.inReplyTo] : [],
          subject: mail.subject ?? '',
        },
        messageId,
        { automated: true },
      );
      const outboundId = await repo.insertAutomatedOutbound(tx, {
        tenantId: mailbox.tenant_id,
        mailboxId: mailbox.id,
        conversationId: reply.conversationId,
        inboundId,
        messageId,
        to: recipients.to.address,
        toName: recipients.to.name || null,
        cc: recipients.cc,
        subject: threading.subject,
        inReplyTo: mail.messageId,
        references: threading.references.map((id) => `<${id}>`),
        text: renderMailReply({
          reply: reply.text,
          blocks: reply.blocks,
          language: detectLanguage(strippedText),
        }),
      });
      await enqueueMail(tx, mailbox.tenant_id, outboundId, inboundId);
      await repo.markInboundAnswered(tx, inboundId, reply.conversationId);
    },
  };
}

/**
 * Whether an error will fail the same way on every attempt: the database refused the data
 * (SQLSTATE classes 22 and 23: too long, invalid, a constraint). Such a mail is settled as failed so it never holds up the mails after it;
 * anything else (the model or the database away) is tried again later.
 */
export function isPermanentFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // Only the database's verdict: a TypeError may be a network failure (fetch) and is retried.
  return typeof code === 'string' && /^(22|23)[0-9A-Z]{3}$/.test(code);
}

/** The mailbox's own addresses (never answered, never put in Cc). */
export function ownAddresses(mailbox: MailboxRow): string[] {
  return [mailbox.address, ...mailbox.aliases].map((a) => a.toLowerCase());
}

/** Who a reply to this mail goes to, or the reason there is nobody to answer. */
export function recipientsOf(mailbox: MailboxRow, mail: InboundMail) {
  return replyTargets(mail.addresses ?? { from: mail.from ? [mail.from] : [] }, {
    own: ownAddresses(mailbox),
    replyAll: mailbox.settings.reply_all ?? true,
  });
}

type Skip = (
  reason: string,
  status?: 'skipped' | 'failed',
  conversationId?: string | null,
) => Promise<InboundOutcome>;

function skipper(ctx: AppContext, id: string): Skip {
  return async (reason, status = 'skipped', conversationId = null) => {
    await markSkipped(ctx.db, id, status, reason, conversationId);
    return { status, inboundId: id, reason };
  };
}

/**
 * Takes one arrived mail. Safe to call again for the same mail (a re-sync, a provider's retry,
 * a restart between storing and answering): a mail already settled is a duplicate; one stored
 * but not yet settled is answered now, and the engine's idempotency key makes a turn that did
 * complete replay instead of answering again.
 *
 * A mail that fails the same way on every attempt is settled as `failed` with its reason;
 * throws only when the mail should be tried again later (the model or the database is away).
 * A mail whose turn another (dead) instance still holds is `deferred`: not settled, taken again
 * in a later round.
 */
export async function receiveMail(
  ctx: AppContext,
  mailbox: MailboxRow,
  mail: InboundMail,
): Promise<InboundOutcome> {
  const hash = bodyHash(mail.text);
  const stored = await storeOnce(ctx.db, mailbox, mail, hash);
  if (stored.status !== 'received') return { status: 'duplicate', inboundId: stored.id };
  const skip = skipper(ctx, stored.id);
  try {
    return await decide(ctx, mailbox, mail, stored.id, skip);
  } catch (error) {
    if (isPermanentFailure(error)) return skip(failureWords(error), 'failed');
    throw error;
  }
}

function failureWords(error: unknown): string {
  const e = error as { code?: string; message?: string };
  return `${e.code ? `${e.code}: ` : ''}${e.message ?? String(error)}`.slice(0, 200);
}

async function decide(
  ctx: AppContext,
  mailbox: MailboxRow,
  mail: InboundMail,
  id: string,
  skip: Skip,
): Promise<InboundOutcome> {
  if (mail.skipReason) return skip(mail.skipReason);
  const targets = recipientsOf(mailbox, mail);
  const input: MailInput = {
    ...mailInput(mail),
    replyTo: targets.ok ? (targets.replyTo?.address ?? null) : null,
  };
  const robot = isAutomated(input, {
    addresses: ownAddresses(mailbox),
    messageIdDomains: [domainOf(mailbox.address)],
    messageIdLocal: OWN_MESSAGE_ID_LOCAL,
  });
  if (robot.automated) {
    // A delivery report about one of our replies: that reply bounced (or is delayed). Never answered.
    await matchDeliveryReport(ctx, mailbox, mail);
    return skip(robot.reason);
  }
  if (!targets.ok) return skip(targets.reason);
  await repo.setRecipients(ctx.db, id, targets.replyTo?.address ?? null, targets.cc);
  // Our own mail came back (a forward, a rule): its Message-ID is one we sent.
  const own = await repo.isOwnMessageId(ctx.db, mailbox.tenant_id, mail.messageId);
  if (own) return skip('own_message_id');
  const text = stripReply(mail.text, mail.html ?? null).text;
  await repo.setStrippedText(ctx.db, id, text);
  if (!text) return skip('empty_text');
  return converseMail(ctx, mailbox, mail, id, text, { to: targets.to, cc: targets.cc }, skip, {
    forced: false,
  });
}

async function matchDeliveryReport(ctx: AppContext, mailbox: MailboxRow, mail: InboundMail): Promise<void> {
  // The decoded text first: the server's words are read from the first match, and the raw form
  // may be quoted-printable (lines cut with `=`); the returned headers are found in the raw form.
  const text = [mail.text, mail.html ?? '', mail.raw?.toString('utf8') ?? ''].join('\n');
  const report = readDeliveryReport(text, domainOf(mailbox.address));
  if (report.messageIds.length === 0 || report.action === null) return;
  const words = report.diagnostic ?? (report.action === 'failed' ? 'bounced' : 'delayed');
  if (report.action === 'failed')
    await repo.markOutboundBounced(ctx.db, mailbox.tenant_id, report.messageIds, words);
  else await repo.markOutboundDelayed(ctx.db, mailbox.tenant_id, report.messageIds, words);
}

/**
 * The mail's turn: its thread, the attachments, and the engine, whose admission runs the loop
 * guard (loop-guard.ts; not for a reply the team asked for). `forced`: answered although it had been skipped, once.
 */
export async function converseMail(
  ctx: AppContext,
  mailbox: MailboxRow,
  mail: InboundMail,
  id: string,
  text: string,
  recipients: Recipients,
  skip: Skip,
  options: { forced: boolean },
): Promise<InboundOutcome> {
  const customer = recipients.to.address;
  const input = mailInput(mail);
  const candidates = threadCandidates(input);
  const known = await knownMessages(ctx.db, mailbox, candidates);
  const decision = chooseThread({
    tenantId: mailbox.tenant_id,
    domain: domainOf(mailbox.address),
    secret: messageIdSecret(ctx),
    previousSecrets: previousMessageIdSecrets(ctx),
    sender: customer,
    candidates,
    inReplyTo: mail.inReplyTo ? [bareId(mail.inReplyTo)] : [],
    known,
  });
  let conversationId: string | null = null;
  let linkedConversationId: string | null = null;
  if (decision.kind === 'join') {
    const ended = known.some((k) => k.conversationId === decision.conversationId && k.ended);
    if (ended) linkedConversationId = decision.conversationId;
    else conversationId = decision.conversationId;
  } else if (decision.kind === 'new') {
    linkedConversationId = decision.linkedConversationId;
  }

  // The person answered is the contact (a contact form's customer in Reply-To, not the website).
  await contactOfMailPerson(ctx.db, mailbox.tenant_id, recipients.to);

  const attachments = await readAttachments(ctx, mailbox, mail.attachments ?? []);
  if (attachments.notes.length > 0) await repo.setAttachmentNotes(ctx.db, id, attachments.notes);
  const message = attachments.text
    ? `${text.slice(0, 10_000)}\n\n${ATTACHMENTS_LEAD}\n${attachments.text}`
    : text.slice(0, 10_000);
  const turn = (conversation: string | null) =>
    converse(
      ctx,
      {
        tenantId: mailbox.tenant_id,
        botId: mailbox.bot_id,
        input: {
          message,
          senderId: customer,
          channel: 'email',
          conversationId: conversation,
          metadata: {
            email: {
              mailbox_id: mailbox.id,
              subject: mail.subject ?? '',
              ...(linkedConversationId ? { linked_conversation_id: linkedConversationId } : {}),
              ...(options.forced ? { forced: true } : {}),
            },
          },
        },
        idempotencyKey: options.forced ? `email:${id}:forced` : `email:${id}`,
        // The loop guard (loop-guard.ts) reads them; a reply the team asked for is not guarded.
        ...(options.forced
          ? {}
          : {
              facts: {
                email: { mailboxId: mailbox.id, inboundId: id, sender: customer, strippedText: text },
              },
            }),
      },
      { delivery: mailDelivery(ctx, mailbox, mail, id, text, recipients) },
    );
  try {
    const outcome = await turn(conversationId);
    return { status: 'answered', inboundId: id, conversationId: outcome!.response.conversation_id };
  } catch (error) {
    if (!(error instanceof EngineRefusal)) {
      if (!(error instanceof AppError) || error.statusCode >= 500) throw error;
      return skip(error.error, 'failed');
    }
    switch (error.reason) {
      // The loop guard: stored with its reason word (hourly_cap, daily_cap, duplicate_body).
      case 'loop_guarded':
        return skip(error.guard?.reason ?? error.reason, 'skipped', conversationId);
      case 'handed_over':
        return skip('handed_over', 'skipped', conversationId);
      case 'bot_disabled':
        return skip('bot_disabled');
      case 'quota_exhausted':
        return skip('quota_exhausted', 'skipped', conversationId);
      // Another instance (a dead one, until its reservation runs out) holds this mail's turn.
      case 'idempotency_in_flight':
        return { status: 'deferred', inboundId: id, reason: 'turn_reserved' };
      case 'model_unavailable':
        throw error;
      case 'bot_not_found':
      case 'conversation_not_found':
      case 'idempotency_mismatch':
      case 'budget_exhausted':
      case 'opted_out':
        return skip(error.reason, 'failed');
    }
  }
}
