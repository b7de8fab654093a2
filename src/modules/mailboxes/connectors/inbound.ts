/**
 * One arrived mail, whatever connector brought it: stored once, checked for robots, stripped
 * of quotes, matched to its thread, and answered through the conversation engine. The reply's
 * outbox row, its own Message-ID and the mail's new state are written in the exchange's one
 * transaction, so the reply goes out exactly when the exchange is stored — once.
 */
import { createHash } from 'node:crypto';
import type { AppContext } from '../../../shared/context.js';
import { queryOne, type Queryable } from '../../../db/database.js';
import { AppError, CHAT_EXTRA_TEXT, CHAT_TEXT } from '../../../http/errors.js';
import { converse } from '../../chat/pipeline/engine.js';
import type { ChannelDelivery, OutboundReply } from '../../chat/pipeline/types.js';
import type { ChatBlock } from '../../flow/stage.js';
import type { MailboxRow } from '../../mailboxes/repository.js';
import { secretStoreFor } from '../../mailboxes/secret-store.js';
import { enqueue } from '../../outbox/service.js';
import {
  isAutomated,
  ownMessageId,
  replyHeaders,
  replySubject,
  stripReply,
  threadCandidates,
  type MailHeaders,
} from './mail-core.js';

/** The outbox kind of e-mail replies (the bot's and a person's). */
export const EMAIL_REPLY_KIND = 'email.reply';

/** Per sender and mailbox: at most this many answers an hour, and a day. */
export const SENDER_CAP_HOUR = 10;
export const SENDER_CAP_DAY = 30;
/** The same text from the same sender within this time is answered once. */
const REPEAT_WINDOW_MINUTES = 10;

export interface InboundMail {
  /** With angle brackets; a mail without one gets a stable id from its content. */
  messageId: string;
  from: string | null;
  subject: string | null;
  inReplyTo: string | null;
  references: string[];
  text: string;
  headers: MailHeaders;
  contentType: string;
  /** The provider's own id of the mail (Graph message id), for replying and marking read. */
  providerId?: string;
}

export type InboundOutcome =
  | { status: 'answered'; inboundId: string; conversationId: string }
  | { status: 'skipped'; inboundId: string; reason: string }
  | { status: 'failed'; inboundId: string; reason: string }
  | { status: 'duplicate'; inboundId: string };

export function bodyHash(text: string): string {
  return createHash('sha256').update(text.replace(/\r\n/g, '\n').trim()).digest('hex');
}

function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1);
}

/** A reply's text for e-mail: the reply, then at most one interactive block as a numbered list. */
export function plainTextBody(reply: string, blocks: ChatBlock[]): string {
  const block = blocks[0];
  if (!block || block.items.length === 0) return reply.trim();
  const items = block.items.map(
    (item, i) => `${i + 1}. ${item.title}${item.description ? ` – ${item.description}` : ''}`,
  );
  return `${reply.trim()}\n\n${items.join('\n')}`;
}

interface StoredInbound {
  id: string;
  status: string;
  from_address: string | null;
}

async function storeOnce(
  db: Queryable,
  mailbox: MailboxRow,
  mail: InboundMail,
  hash: string,
): Promise<StoredInbound> {
  const inserted = await queryOne<StoredInbound>(
    db,
    `INSERT INTO email_inbound (tenant_id, mailbox_id, message_id, body_hash, from_address, subject, in_reply_to,
       references_ids, body_text, provider_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (mailbox_id, message_id, body_hash) DO NOTHING
     RETURNING id, status, from_address`,
    [
      mailbox.tenant_id,
      mailbox.id,
      mail.messageId.slice(0, 998),
      hash,
      mail.from,
      mail.subject?.slice(0, 998) ?? null,
      mail.inReplyTo?.slice(0, 998) ?? null,
      mail.references.slice(-50),
      mail.text,
      mail.providerId ?? null,
    ],
  );
  if (inserted) return inserted;
  const existing = await queryOne<StoredInbound>(
    db,
    'SELECT id, status, from_address FROM email_inbound WHERE mailbox_id = $1 AND message_id = $2 AND body_hash = $3',
    [mailbox.id, mail.messageId.slice(0, 998), hash],
  );
  if (!existing) throw new Error('inbound mail vanished between insert and select');
  return existing;
}

async function markSkipped(
  db: Queryable,
  id: string,
  status: 'skipped' | 'failed',
  reason: string,
): Promise<void> {
  await db.query(
    `UPDATE email_inbound SET status = $2, skip_reason = $3, processed_at = now() WHERE id = $1 AND status = 'received'`,
    [id, status, reason.slice(0, 200)],
  );
}

/** Why a person's mail is not answered though it is a person's: caps and repeats. */
async function throttled(db: Queryable, mailbox: MailboxRow, from: string, hash: string, id: string) {
  const row = await queryOne<{ hour: number; day: number; repeated: number }>(
    db,
    `SELECT count(*) FILTER (WHERE received_at > now() - interval '1 hour')::int AS hour,
            count(*)::int AS day,
            count(*) FILTER (WHERE body_hash = $3 AND received_at > now() - make_interval(mins => $5))::int AS repeated
     FROM email_inbound
     WHERE mailbox_id = $1 AND from_address = $2 AND status = 'answered' AND id <> $4
       AND received_at > now() - interval '1 day'`,
    [mailbox.id, from, hash, id, REPEAT_WINDOW_MINUTES],
  );
  if (!row) return null;
  if (row.repeated > 0) return 'repeated_text';
  if (row.hour >= SENDER_CAP_HOUR) return 'sender_hourly_cap';
  if (row.day >= SENDER_CAP_DAY) return 'sender_daily_cap';
  return null;
}

/**
 * The conversation a reply belongs to: one whose mails (ours or the customer's) carry an id the
 * reply refers to, in this mailbox, with this sender as its participant. Otherwise none (a new
 * conversation): a forwarded mail or another recipient of the same mail starts its own.
 */
async function findThread(
  db: Queryable,
  mailbox: MailboxRow,
  from: string,
  ids: string[],
): Promise<string | null> {
  if (ids.length === 0) return null;
  const row = await queryOne<{ conversation_id: string }>(
    db,
    `SELECT t.conversation_id FROM (
       SELECT conversation_id, message_id FROM email_outbound WHERE mailbox_id = $1 AND message_id = ANY($2::text[])
       UNION ALL
       SELECT conversation_id, message_id FROM email_inbound WHERE mailbox_id = $1 AND message_id = ANY($2::text[])
     ) t
     JOIN conversations c ON c.id = t.conversation_id
     WHERE c.tenant_id = $3 AND lower(c.sender_id) = $4 AND c.status <> 'ended'
     ORDER BY array_position($2::text[], t.message_id::text)
     LIMIT 1`,
    [mailbox.id, ids, mailbox.tenant_id, from],
  );
  return row?.conversation_id ?? null;
}

/** The engine's output port for a mail: the reply's outbound row and outbox message, in the exchange's transaction. */
function mailDelivery(
  ctx: AppContext,
  mailbox: MailboxRow,
  mail: InboundMail,
  inboundId: string,
): ChannelDelivery {
  return {
    async enqueue(tx: Queryable, reply: OutboundReply) {
      const key = secretStoreFor(ctx.config).hmacKey('email-message-id');
      const messageId = ownMessageId(domainOf(mailbox.address), key);
      const threading = replyHeaders({ messageId: mail.messageId, references: mail.references });
      const outbound = await queryOne<{ id: string }>(
        tx,
        `INSERT INTO email_outbound (tenant_id, mailbox_id, conversation_id, inbound_id, message_id, to_address, subject,
           in_reply_to, references_ids, body_text, automated)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, true) RETURNING id`,
        [
          mailbox.tenant_id,
          mailbox.id,
          reply.conversationId,
          inboundId,
          messageId,
          mail.from,
          replySubject(mail.subject),
          threading.inReplyTo,
          threading.references,
          plainTextBody(reply.response.reply, reply.response.blocks),
        ],
      );
      await enqueue(tx, mailbox.tenant_id, [
        {
          kind: EMAIL_REPLY_KIND,
          idempotencyKey: `${EMAIL_REPLY_KIND}:${inboundId}`,
          payload: { outbound_id: outbound!.id },
        },
      ]);
      await tx.query(
        `UPDATE email_inbound SET status = 'answered', conversation_id = $2, processed_at = now() WHERE id = $1`,
        [inboundId, reply.conversationId],
      );
    },
  };
}

/**
 * Takes one arrived mail. Safe to call again for the same mail (a re-sync, a provider's retry,
 * a restart between storing and answering): a mail already settled is a duplicate; one stored
 * but not yet settled is answered now, and the engine's idempotency key makes a turn that did
 * complete replay instead of answering again.
 *
 * Throws only when the mail should be tried again later (the model or the database is away).
 */
export async function receiveMail(
  ctx: AppContext,
  mailbox: MailboxRow,
  mail: InboundMail,
): Promise<InboundOutcome> {
  const hash = bodyHash(mail.text);
  const stored = await storeOnce(ctx.db, mailbox, mail, hash);
  if (stored.status !== 'received') return { status: 'duplicate', inboundId: stored.id };
  const from = mail.from?.toLowerCase() ?? null;
  const skip = async (reason: string, status: 'skipped' | 'failed' = 'skipped'): Promise<InboundOutcome> => {
    await markSkipped(ctx.db, stored.id, status, reason);
    return { status, inboundId: stored.id, reason };
  };

  const robot = isAutomated({
    headers: mail.headers,
    from,
    contentType: mail.contentType,
    ownAddresses: [mailbox.address, ...mailbox.aliases].map((a) => a.toLowerCase()),
    ownDomain: domainOf(mailbox.address),
  });
  if (robot) return skip(robot);
  const text = stripReply(mail.text);
  await ctx.db.query('UPDATE email_inbound SET stripped_text = $2 WHERE id = $1', [stored.id, text]);
  if (!text) return skip('empty_text');
  const limited = await throttled(ctx.db, mailbox, from!, hash, stored.id);
  if (limited) return skip(limited);

  const conversationId = await findThread(
    ctx.db,
    mailbox,
    from!,
    threadCandidates(mail.inReplyTo, mail.references),
  );
  const turn = (conversation: string | null) =>
    converse(
      ctx,
      {
        tenantId: mailbox.tenant_id,
        botId: mailbox.bot_id,
        input: {
          message: text.slice(0, 10_000),
          senderId: from,
          channel: 'email',
          conversationId: conversation,
          metadata: { email: { mailbox_id: mailbox.id, subject: mail.subject ?? '' } },
        },
        idempotencyKey: `email:${stored.id}`,
      },
      { delivery: mailDelivery(ctx, mailbox, mail, stored.id) },
    );
  try {
    const outcome = await turn(conversationId);
    return { status: 'answered', inboundId: stored.id, conversationId: outcome!.response.conversation_id };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.error === CHAT_EXTRA_TEXT.handedOver) return skip('handed_over');
    if (error.error === CHAT_TEXT.botDisabled) return skip('bot_disabled');
    if (error.error === CHAT_TEXT.quotaExhausted) return skip('quota_exhausted');
    if (error.statusCode >= 500 || error.statusCode === 409) throw error;
    return skip(error.error, 'failed');
  }
}
