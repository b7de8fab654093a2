/**
 * The outbox sender of kind `email.reply` and the delivery of a person's reply: payload
 * `{outbound_id}`, the mail row written with the bot's exchange (inbound.ts) or with a person's
 * reply from the inbox (personMailDelivery), sent from the conversation's mailbox by SMTP or Graph. The mail's Message-ID is fixed before
 * the first attempt, so every attempt sends the same mail; the outbox's send-once key and claim
 * make sure only one instance attempts it at a time and none after it was sent.
 */
import { createHash } from 'node:crypto';
import type { AppContext } from '../../../shared/context.js';
import type { Queryable } from '../../../db/database.js';
import { findMailboxById, type MailboxRow } from '../../mailboxes/repository.js';
import { secretStoreFor } from '../../mailboxes/secret-store.js';
import type { OutboxMessage, OutboxSender, SendResult } from '../../outbox/service.js';
import type { ChannelDelivery } from '../../chat/pipeline/types.js';
import { graphClient, replyByGraph } from './graph.js';
import { ownMessageId, replyHeaders } from '../../email/threading.js';
import { exactlyOne } from '../../email/addresses.js';
import { EMAIL_REPLY_KIND, enqueueMail, messageIdSecret } from './inbound.js';
import * as repo from './repository.js';
import { sendBySmtp, type OutgoingMail } from './smtp.js';

/** Attempts in one round before a reply is dead (about a day with the outbox's backoff). */
const MAX_ATTEMPTS = 8;
const ATTEMPT_TIMEOUT_MS = 30_000;

/**
 * A person's reply (from the inbox) as an outbound mail row: to the conversation's customer, in
 * the thread of their latest mail, with a Message-ID derived from the message's id (so writing
 * it again finds the same row), without the robot marks. Undefined when no mail of the
 * conversation was received (it was started through the chat API).
 */
async function personOutbound(
  ctx: Pick<AppContext, 'config'>,
  db: Queryable,
  tenantId: string,
  reply: { conversationId: string; messageId: string; text: string },
): Promise<repo.OutboundRow | undefined> {
  const parent = await repo.latestInboundOfConversation(db, tenantId, reply.conversationId);
  if (!parent) return undefined;
  const domain = parent.address.slice(parent.address.lastIndexOf('@') + 1);
  const fixed = createHash('sha256').update(`person-reply:${reply.messageId}`).digest('hex').slice(0, 24);
  const messageId = ownMessageId(domain, tenantId, reply.conversationId, messageIdSecret(ctx), fixed);
  const threading = replyHeaders(
    {
      messageId: parent.message_id,
      references: parent.references_ids,
      inReplyTo: parent.in_reply_to ? [parent.in_reply_to] : [],
      subject: parent.subject ?? '',
    },
    messageId,
    { automated: false },
  );
  await repo.insertPersonOutbound(db, {
    tenantId,
    mailboxId: parent.mailbox_id,
    conversationId: reply.conversationId,
    inboundId: parent.id,
    messageId,
    to: parent.from_address,
    toName: null,
    cc: parent.cc_addresses ?? [],
    subject: threading.subject,
    inReplyTo: parent.message_id,
    references: threading.references.map((id) => `<${id}>`),
    text: reply.text,
  });
  return repo.findOutboundByMessageId(db, parent.mailbox_id, messageId);
}

/**
 * The delivery of a person's reply from the inbox on an e-mail conversation: the outbound row
 * and its `email.reply` message, like the bot's (inbound.ts). A conversation no mailbox started
 * (the chat API named the channel) is the tenant's integration: its reply leaves as `fallback`
 * does (the API's `conversation.message` event).
 */
export function personMailDelivery(
  ctx: Pick<AppContext, 'config'>,
  fallback: ChannelDelivery,
): ChannelDelivery {
  return {
    async enqueue(tx, reply) {
      const row = reply.messageId
        ? await personOutbound(ctx, tx, reply.tenantId, { ...reply, messageId: reply.messageId })
        : undefined;
      if (!row) return fallback.enqueue(tx, reply);
      await enqueueMail(tx, reply.tenantId, row.id, reply.messageId!);
    },
  };
}

/**
 * The outbound row of an `email.reply` message. Messages queued by earlier versions for a
 * person's reply carry `{conversation_id, message_id}` instead of `{outbound_id}`: their row is
 * written on the first attempt (the same row on every attempt, see personOutbound).
 */
async function outboundOf(ctx: AppContext, message: OutboxMessage): Promise<repo.OutboundRow | undefined> {
  const payload = message.payload as { outbound_id?: string; conversation_id?: string; message_id?: string };
  if (payload.outbound_id) return repo.findOutbound(ctx.db, message.tenant_id, payload.outbound_id);
  if (!payload.conversation_id || !payload.message_id) return undefined;
  const content = await repo.findMessageContent(
    ctx.db,
    message.tenant_id,
    payload.conversation_id,
    payload.message_id,
  );
  if (!content) return undefined;
  return personOutbound(ctx, ctx.db, message.tenant_id, {
    conversationId: payload.conversation_id,
    messageId: payload.message_id,
    text: content.content,
  });
}

/**
 * The mail as it leaves: every address structured (`{name, address}`), so the transport never
 * parses a string again and a name can carry no second recipient.
 */
export function outgoing(row: repo.OutboundRow, mailbox: MailboxRow): OutgoingMail {
  // No control characters, quotes or backslashes in a display name (nodemailer encodes the rest).
  const clean = (name: string | null | undefined) =>
    [...(name ?? '')]
      .filter((c) => c.charCodeAt(0) >= 0x20 && c.charCodeAt(0) !== 0x7f && c !== '"' && c !== '\\')
      .join('')
      .trim();
  return {
    messageId: row.message_id,
    from: { name: clean(mailbox.name), address: mailbox.address },
    to: { name: clean(row.to_name), address: row.to_address },
    cc: (row.cc_addresses ?? []).map((a) => ({ name: clean(a.name), address: a.address })),
    subject: row.subject,
    inReplyTo: row.in_reply_to,
    references: row.references_ids,
    text: row.body_text,
    automated: row.automated,
  };
}

/**
 * One send at a time per mailbox in this instance: a crash between the server's acceptance and
 * its record can then leave at most one reply per mailbox unrecorded (sent again, with the same
 * Message-ID, on the next attempt).
 */
class PerMailbox {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(mailboxId: string, work: () => Promise<T>): Promise<T> {
    const before = this.tails.get(mailboxId) ?? Promise.resolve();
    const mine = before.then(work, work);
    const tail = mine.catch(() => undefined);
    this.tails.set(mailboxId, tail);
    void tail.then(() => {
      if (this.tails.get(mailboxId) === tail) this.tails.delete(mailboxId);
    });
    return mine;
  }
}

/** Whether a stored reply's recipients are still each exactly one valid address (rows of earlier versions included). */
function recipientsValid(mail: OutgoingMail): boolean {
  return [mail.to, ...mail.cc].every((a) => {
    const one = exactlyOne([a.address]);
    return one?.ok === true && one.address.address === a.address.toLowerCase();
  });
}

export function createEmailSender(ctx: AppContext): OutboxSender {
  const secrets = secretStoreFor(ctx.config);
  const perMailbox = new PerMailbox();
  /** The server's words of the last attempt per outbox message, for the delivery status. */
  const words = new Map<string, string>();
  /** The outbound row each outbox message of the running attempts sends. */
  const outboundIds = new Map<string, string>();
  return {
    kind: EMAIL_REPLY_KIND,
    maxAttempts: MAX_ATTEMPTS,
    attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
    async send(message: OutboxMessage): Promise<SendResult> {
      const started = Date.now();
      const row = await outboundOf(ctx, message);
      if (row) outboundIds.set(message.id, row.id);
      if (!row)
        return {
          verdict: { kind: 'permanent', reason: 'Nothing to send: the mail or its thread is gone' },
          durationMs: 0,
        };
      if (row.sent_at) return { verdict: { kind: 'sent' }, durationMs: 0 };
      const mailbox = await findMailboxById(ctx.db, row.mailbox_id);
      if (!mailbox)
        return { verdict: { kind: 'permanent', reason: 'The mailbox was removed' }, durationMs: 0 };
      if (!mailbox.is_active) return { verdict: { kind: 'held', delayMs: 10 * 60_000 }, durationMs: 0 };
      const mail = outgoing(row, mailbox);
      if (!recipientsValid(mail))
        return {
          verdict: { kind: 'permanent', reason: 'The recipient is not exactly one valid address' },
          durationMs: 0,
        };
      let result: Omit<SendResult, 'durationMs'> = { verdict: { kind: 'failed' } };
      await perMailbox.run(mailbox.id, async () => {
        try {
          if (mailbox.kind === 'graph') {
            result = row.parent_provider_id
              ? await replyByGraph(
                  graphClient(mailbox, secrets, ctx.config.email),
                  mailbox,
                  row.parent_provider_id,
                  mail,
                )
              : { verdict: { kind: 'permanent', reason: 'The mail to reply to has no Graph id' } };
          } else {
            result = await sendBySmtp(mailbox, secrets, mail, ATTEMPT_TIMEOUT_MS, {
              allowPrivate: ctx.config.outbound.allowPrivateTargets,
            });
          }
        } catch (error) {
          result = { verdict: { kind: 'failed' }, error: (error as Error).message };
        }
      });
      const said = result.error ?? (result.verdict.kind === 'permanent' ? result.verdict.reason : null);
      if (said) words.set(message.id, said.slice(0, 1000));
      else if (result.statusCode) words.set(message.id, String(result.statusCode));
      return { ...result, durationMs: Date.now() - started };
    },
    async afterAttempt(tx, message, next) {
      const said = words.get(message.id) ?? null;
      words.delete(message.id);
      const outboundId =
        outboundIds.get(message.id) ?? (message.payload as { outbound_id?: string }).outbound_id;
      outboundIds.delete(message.id);
      if (!outboundId) return;
      if (next.kind === 'sent') return repo.markOutboundSent(tx, outboundId, said);
      if (next.kind === 'held') return;
      await repo.markOutboundAttempt(tx, outboundId, next.kind === 'retry' ? 'deferred' : 'failed', said);
    },
  };
}
