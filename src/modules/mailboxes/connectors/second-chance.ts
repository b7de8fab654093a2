/**
 * A second chance for a mail that was not answered (a robot match that was wrong, a loop cap, a
 * failure): the team answers it anyway — the turn runs once, marked forced — or sends it to the
 * inbox, where it waits for a person. Never for a mail whose addresses were refused: those
 * cannot be answered safely, whoever asks.
 */
import type { AppContext } from '../../../shared/context.js';
import { AppError, conflict, notFound } from '../../../http/errors.js';
import { stripReply } from '../../email/index.js';
import type { MailboxRow } from '../../mailboxes/repository.js';
import { converseMail, recipientsOf, type InboundMail, type InboundOutcome } from './inbound.js';
import { parseRawMail } from './parse.js';
import * as repo from './repository.js';
import { countAddedCustomerMessage, insertCustomerMessage, waitInInbox } from '../../conversations/index.js';

function notSkipped(): AppError {
  return conflict('Only a mail that was not answered gets a second chance, once', {
    code: 'mail_not_skipped',
  });
}

/** The mail as it arrived (parsed again from its raw form), or as stored when no raw form was kept. */
async function mailOf(row: repo.StoredMailRow): Promise<InboundMail> {
  if (row.raw && row.raw.length > 0) {
    const parsed = await parseRawMail(Buffer.from(row.raw));
    return { ...parsed, messageId: row.message_id, providerId: row.provider_id ?? undefined };
  }
  return {
    messageId: row.message_id,
    from: row.from_address,
    addresses: {
      from: row.from_address ? [row.from_address] : [],
      replyTo: row.reply_to ? [row.reply_to] : [],
    },
    subject: row.subject,
    inReplyTo: row.in_reply_to,
    references: row.references_ids,
    text: row.body_text,
    headers: {},
    contentType: 'text/plain',
    providerId: row.provider_id ?? undefined,
  };
}

async function storedMail(ctx: AppContext, mailbox: MailboxRow, mailId: string): Promise<repo.StoredMailRow> {
  const row = await repo.findStoredMail(ctx.db, mailbox.tenant_id, mailbox.id, mailId);
  if (!row) throw notFound('Mail');
  if ((row.status !== 'skipped' && row.status !== 'failed') || row.second_chance) throw notSkipped();
  return row;
}

/** "Answer anyway": the turn runs once for a skipped or failed mail, without the robot and loop checks. */
export async function answerAnyway(
  ctx: AppContext,
  mailbox: MailboxRow,
  mailId: string,
): Promise<{ status: InboundOutcome['status']; conversation_id: string | null }> {
  const row = await storedMail(ctx, mailbox, mailId);
  const mail = await mailOf(row);
  const targets = recipientsOf(mailbox, mail);
  if (!targets.ok)
    throw conflict('This mail cannot be answered: its sender address was refused', {
      code: 'mail_address_refused',
      reason: targets.reason,
    });
  const text = stripReply(mail.text, mail.html ?? null).text || mail.text.trim();
  if (!text) throw conflict('The mail holds no text to answer', { code: 'mail_empty' });
  if (!(await repo.reopenForAnswer(ctx.db, row.id))) throw notSkipped();
  await repo.setRecipients(ctx.db, row.id, targets.replyTo?.address ?? null, targets.cc);
  await repo.setStrippedText(ctx.db, row.id, text);
  const skip = async (
    reason: string,
    status: 'skipped' | 'failed' = 'skipped',
    conversationId: string | null = null,
  ) => {
    await repo.settleInbound(ctx.db, row.id, status, reason.slice(0, 200), conversationId);
    return { status, inboundId: row.id, reason } as InboundOutcome;
  };
  try {
    const outcome = await converseMail(
      ctx,
      mailbox,
      mail,
      row.id,
      text,
      { to: targets.to, cc: targets.cc },
      skip,
      {
        forced: true,
      },
    );
    if (outcome.status === 'deferred') await skip('turn_reserved', 'failed');
    return {
      status: outcome.status === 'deferred' ? 'failed' : outcome.status,
      conversation_id: outcome.status === 'answered' ? outcome.conversationId : row.conversation_id,
    };
  } catch (error) {
    await skip((error as Error).message || 'failed', 'failed');
    if (error instanceof AppError && error.statusCode < 500) throw error;
    throw new AppError(503, 'service_unavailable', 'The mail could not be answered now; try again later');
  }
}

/** "Send to the inbox": the mail waits in a conversation for a person (its own thread when it has one). */
export async function sendToInbox(
  ctx: AppContext,
  mailbox: MailboxRow,
  mailId: string,
): Promise<{ conversation_id: string }> {
  const row = await storedMail(ctx, mailbox, mailId);
  const mail = await mailOf(row);
  const targets = recipientsOf(mailbox, mail);
  const customer = (
    targets.ok ? targets.to.address : (row.reply_to ?? row.from_address ?? 'unbekannt')
  ).slice(0, 255);
  const text = (row.stripped_text || stripReply(mail.text, mail.html ?? null).text || mail.text).slice(
    0,
    10_000,
  );
  const content = mail.subject ? `${mail.subject}\n\n${text}` : text;
  return ctx.db.transaction(async (tx) => {
    const conversationId = await waitInInbox(tx, {
      tenantId: mailbox.tenant_id,
      botId: mailbox.bot_id,
      conversationId: row.conversation_id,
      senderId: customer,
      question: content,
      metadata: { email: { mailbox_id: mailbox.id, subject: mail.subject ?? '' } },
    });
    await insertCustomerMessage(tx, {
      tenantId: mailbox.tenant_id,
      botId: mailbox.bot_id,
      conversationId,
      content,
      channel: 'email',
    });
    await countAddedCustomerMessage(tx, mailbox.tenant_id, conversationId);
    if (!(await repo.markSentToInbox(tx, row.id, conversationId))) throw notSkipped();
    return { conversation_id: conversationId };
  });
}

/** The mail as received, for download. */
export async function rawMail(
  ctx: AppContext,
  mailbox: MailboxRow,
  mailId: string,
): Promise<{ raw: Buffer; messageId: string }> {
  const row = await repo.findStoredMail(ctx.db, mailbox.tenant_id, mailbox.id, mailId);
  if (!row) throw notFound('Mail');
  const raw =
    row.raw && row.raw.length > 0
      ? Buffer.from(row.raw)
      : Buffer.from(
          `Message-ID: ${row.message_id}\r\nFrom: ${row.from_address ?? ''}\r\nSubject: ${row.subject ?? ''}\r\n` +
            `Content-Type: text/plain; charset=utf-8\r\n\r\n${row.body_text}`,
          'utf8',
        );
  return { raw, messageId: row.message_id };
}
