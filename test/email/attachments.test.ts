import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { findMailboxById } from '../../src/modules/mailboxes/repository.js';
import { receiveMail } from '../../src/modules/mailboxes/connectors/inbound.js';
import { parseRawMail } from '../../src/modules/mailboxes/connectors/parse.js';
import { MailboxConnections } from '../../src/modules/mailboxes/connectors/sync.js';
import { describeApp } from '../helpers/app.js';
import { textPdf } from '../knowledge/documents.js';
import { startDovecot, type Dovecot } from './dovecot.js';
import { connectDovecotMailbox } from './mailbox-setup.js';

const DOCX = readFileSync(join(import.meta.dirname, '../fixtures/knowledge/werkstatt.docx'));
const PDF = textPdf(['Preisliste: Der Kurs Yoga am Morgen kostet 49 Euro.']);

/** A customer's mail with a PDF, a DOCX and an image attached, as raw RFC 5322. */
async function mailWithAttachments(messageId: string): Promise<Buffer> {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true });
  const info = await transport.sendMail({
    from: 'Kunde <kunde@kunde.example>',
    to: 'bot@example.test',
    subject: 'Unterlagen',
    messageId,
    text: 'Anbei meine Unterlagen, was kostet der Kurs?',
    attachments: [
      { filename: 'preise.pdf', content: PDF, contentType: 'application/pdf' },
      { filename: 'werkstatt.docx', content: DOCX, contentType: 'application/octet-stream' },
      { filename: 'bild.png', content: Buffer.from('89504e470d0a1a0a', 'hex'), contentType: 'image/png' },
    ],
  });
  return info.message as Buffer;
}

let dovecot: Dovecot;
beforeAll(async () => {
  dovecot = await startDovecot();
}, 30_000);
afterAll(async () => {
  await dovecot?.stop();
});

describeApp('e-mail attachments: limits, and text for the bot only when the mailbox allows it', (get) => {
  async function setUp(readAttachments: boolean) {
    const { mailboxId } = await connectDovecotMailbox(get(), dovecot, { smtpPort: 2525, readAttachments });
    return (await findMailboxById(get().ctx.db, mailboxId))!;
  }

  async function userMessageOf(conversationId: string): Promise<string> {
    const [row] = await get().db.query<{ content: string }>(
      `SELECT content FROM messages WHERE conversation_id = $1 AND role = 'user' ORDER BY created_at LIMIT 1`,
      [conversationId],
    );
    return row!.content;
  }

  it('reads the PDF and DOCX text through the document parser when allowed (mail through Dovecot)', async () => {
    const { ctx } = get();
    const mailbox = await setUp(true);
    await dovecot.append((await mailWithAttachments(`<att-${Date.now()}@kunde.example>`)).toString('utf8'));
    const connections = new MailboxConnections(ctx);
    try {
      await connections.pass();
      await vi.waitUntil(
        async () =>
          (
            await ctx.db.query(`SELECT 1 FROM email_inbound WHERE mailbox_id = $1 AND status = 'answered'`, [
              mailbox.id,
            ])
          ).length === 1,
        { timeout: 60_000, interval: 200 },
      );
    } finally {
      await connections.stop();
    }
    const [inbound] = await ctx.db.query<{
      conversation_id: string;
      attachments: { name: string; read: boolean; reason: string | null }[];
    }>('SELECT conversation_id, attachments FROM email_inbound WHERE mailbox_id = $1', [mailbox.id]);
    expect(inbound!.attachments.map((a) => [a.name, a.read, a.reason])).toEqual([
      ['preise.pdf', true, null],
      ['werkstatt.docx', true, null],
      ['bild.png', false, 'type'],
    ]);
    const message = await userMessageOf(inbound!.conversation_id);
    expect(message).toContain('Anbei meine Unterlagen');
    expect(message).toContain('[preise.pdf]');
    expect(message).toContain('49 Euro');
    expect(message).toContain('[werkstatt.docx]');
    expect(message).not.toContain('bild.png');
  }, 90_000);

  it('gives the bot no attachment text when the mailbox does not allow it', async () => {
    const { ctx } = get();
    const mailbox = await setUp(false);
    const mail = await parseRawMail(await mailWithAttachments(`<off-${Date.now()}@kunde.example>`));
    const outcome = await receiveMail(ctx, mailbox, mail);
    if (outcome.status !== 'answered') throw new Error(outcome.status);
    const message = await userMessageOf(outcome.conversationId);
    expect(message).not.toContain('49 Euro');
    const [row] = await ctx.db.query<{ attachments: { reason: string }[] }>(
      'SELECT attachments FROM email_inbound WHERE id = $1',
      [outcome.inboundId],
    );
    expect(row!.attachments.map((a) => a.reason)).toEqual(['not_allowed', 'not_allowed', 'not_allowed']);
  });

  it('keeps to the size limits (each attachment, all together)', async () => {
    const { ctx } = get();
    const mailbox = await setUp(true);
    const { attachmentMaxBytes, attachmentsMaxTotalBytes } = ctx.config.email;
    try {
      ctx.config.email.attachmentMaxBytes = DOCX.length + 10;
      ctx.config.email.attachmentsMaxTotalBytes = PDF.length + 10;
      const mail = await parseRawMail(await mailWithAttachments(`<big-${Date.now()}@kunde.example>`));
      expect(DOCX.length).toBeGreaterThan(PDF.length);
      const outcome = await receiveMail(ctx, mailbox, mail);
      if (outcome.status !== 'answered') throw new Error(outcome.status);
      const [row] = await ctx.db.query<{ attachments: { name: string; reason: string | null }[] }>(
        'SELECT attachments FROM email_inbound WHERE id = $1',
        [outcome.inboundId],
      );
      expect(row!.attachments.map((a) => [a.name, a.reason])).toEqual([
        ['preise.pdf', null],
        ['werkstatt.docx', 'total_too_large'],
        ['bild.png', 'type'],
      ]);
      ctx.config.email.attachmentMaxBytes = 100;
      const small = await parseRawMail(await mailWithAttachments(`<small-${Date.now()}@kunde.example>`));
      const second = await receiveMail(ctx, mailbox, { ...small, from: 'zweite@kunde.example' });
      if (second.status !== 'answered') throw new Error(second.status);
      const [row2] = await ctx.db.query<{ attachments: { reason: string | null }[] }>(
        'SELECT attachments FROM email_inbound WHERE id = $1',
        [second.inboundId],
      );
      expect(row2!.attachments.map((a) => a.reason)).toEqual(['too_large', 'too_large', 'type']);
    } finally {
      ctx.config.email.attachmentMaxBytes = attachmentMaxBytes;
      ctx.config.email.attachmentsMaxTotalBytes = attachmentsMaxTotalBytes;
    }
  });
});
