import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { findMailboxById } from '../../src/modules/mailboxes/repository.js';
import { receiveMail } from '../../src/modules/mailboxes/connectors/inbound.js';
import { parseRawMail } from '../../src/modules/mailboxes/connectors/parse.js';
import { clearGraphTokens } from '../../src/modules/mailboxes/connectors/graph.js';
import { graphRound, MailboxConnections } from '../../src/modules/mailboxes/connectors/sync.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { textPdf } from '../knowledge/documents.js';
import { startDovecot, type Dovecot } from './dovecot.js';
import { startFakeGraph, type FakeGraph } from './graph-server.js';
import { addMailbox, connectDovecotMailbox } from './mailbox-setup.js';

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
      const second = await receiveMail(ctx, mailbox, {
        ...small,
        from: 'zweite@kunde.example',
        addresses: { from: ['zweite@kunde.example'] },
      });
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

describeApp('e-mail attachments through Microsoft Graph (local server with Graph shapes)', (get) => {
  let graph: FakeGraph;
  beforeAll(async () => {
    graph = await startFakeGraph();
  });
  afterAll(async () => {
    await graph?.close();
  });

  async function graphMailbox(readAttachments: boolean) {
    const { ctx, app } = get();
    ctx.config.email.graphLoginUrl = graph.loginUrl;
    ctx.config.email.graphApiUrl = graph.apiUrl;
    clearGraphTokens();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const id = await addMailbox(app, tenant, bot.id, {
      kind: 'graph',
      name: 'M365',
      address: `info-${tenant.id.slice(0, 8)}@contoso.example`,
      settings: {
        tenant_id: 'contoso.onmicrosoft.com',
        client_id: '11111111-2222-3333-4444-555555555555',
        read_attachments: readAttachments,
      },
      secrets: { client_secret: 'graph-client-secret-value' },
    });
    return { tenant, id };
  }

  /** A customer's mail in the Graph inbox with a PDF, a DOCX (as octet-stream), a picture in the body, an attached Outlook item and a cloud file link. */
  function deliver(tenantId: string, tag: string): string {
    const id = `AAMk-${tag}-${tenantId}`;
    graph.deliver({
      id,
      internetMessageId: `<${tag}-${tenantId}@kunde.example>`,
      subject: 'Unterlagen',
      from: `${tag}@kunde.example`,
      text: 'Anbei meine Unterlagen, was kostet der Kurs?',
      attachments: [
        { kind: 'file', name: 'preise.pdf', contentType: 'application/pdf', content: PDF },
        {
          kind: 'file',
          name: 'logo.png',
          contentType: 'image/png',
          content: Buffer.from('89504e47', 'hex'),
          isInline: true,
        },
        { kind: 'file', name: 'werkstatt.docx', contentType: 'application/octet-stream', content: DOCX },
        { kind: 'item', name: 'Weitergeleitet: Termin' },
        { kind: 'reference', name: 'Angebot.xlsx' },
      ],
    });
    return id;
  }

  async function inboundOf(mailboxId: string) {
    return get().db.query<{
      status: string;
      conversation_id: string | null;
      attachments:
        { name: string; type: string; size: number; read: boolean; reason: string | null }[] | null;
    }>('SELECT status, conversation_id, attachments FROM email_inbound WHERE mailbox_id = $1', [mailboxId]);
  }

  async function userMessageOf(conversationId: string): Promise<string> {
    const [row] = await get().db.query<{ content: string }>(
      `SELECT content FROM messages WHERE conversation_id = $1 AND role = 'user' ORDER BY created_at LIMIT 1`,
      [conversationId],
    );
    return row!.content;
  }

  it('reads the PDF and DOCX text of a Graph mail (attachments paged by nextLink); Outlook items and links are refused', async () => {
    const { ctx } = get();
    const { tenant, id } = await graphMailbox(true);
    const messageId = deliver(tenant.id, 'graph-att');
    const callsBefore = graph.calls.length;
    expect(await graphRound(ctx, id, null)).toBe(1);
    const calls = graph.calls.slice(callsBefore);
    expect(calls.find((c) => c.path.includes('/messages/delta'))!.path).toMatch(
      /\$select=[^&]*hasAttachments/,
    );
    const attachmentCalls = calls.filter((c) => c.path.includes(`/messages/${messageId}/attachments`));
    // Five entries, two a page: the first query and two nextLinks, all with the content.
    expect(attachmentCalls.map((c) => decodeURIComponent(c.path).replace(/^.*\/attachments/, ''))).toEqual([
      '',
      '?$skip=2',
      '?$skip=4',
    ]);
    const [inbound] = await inboundOf(id);
    expect(inbound!.status).toBe('answered');
    expect(inbound!.attachments!.map((a) => [a.name, a.read, a.reason])).toEqual([
      ['preise.pdf', true, null],
      ['werkstatt.docx', true, null],
      ['Weitergeleitet: Termin', false, 'not_a_file'],
      ['Angebot.xlsx', false, 'not_a_file'],
    ]);
    expect(inbound!.attachments![1]).toMatchObject({
      type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      size: DOCX.length,
    });
    const message = await userMessageOf(inbound!.conversation_id!);
    expect(message).toContain('Anbei meine Unterlagen');
    expect(message).toContain('[preise.pdf]');
    expect(message).toContain('49 Euro');
    expect(message).toContain('[werkstatt.docx]');
    expect(message).not.toContain('logo.png');
    expect(message).not.toContain('Angebot.xlsx');
  });

  it('fetches no content for a mailbox that reads no attachments, and gives the bot none', async () => {
    const { ctx } = get();
    const { tenant, id } = await graphMailbox(false);
    const messageId = deliver(tenant.id, 'graph-off');
    const callsBefore = graph.calls.length;
    expect(await graphRound(ctx, id, null)).toBe(1);
    const attachmentCalls = graph.calls
      .slice(callsBefore)
      .filter((c) => c.path.includes(`/messages/${messageId}/attachments`));
    expect(attachmentCalls.length).toBeGreaterThan(0);
    for (const call of attachmentCalls) expect(decodeURIComponent(call.path)).toContain('$select=');
    const [inbound] = await inboundOf(id);
    expect(inbound!.status).toBe('answered');
    expect(inbound!.attachments!.map((a) => [a.name, a.reason])).toEqual([
      ['preise.pdf', 'not_allowed'],
      ['werkstatt.docx', 'not_allowed'],
      ['Weitergeleitet: Termin', 'not_allowed'],
      ['Angebot.xlsx', 'not_allowed'],
    ]);
    expect(await userMessageOf(inbound!.conversation_id!)).not.toContain('49 Euro');
  });

  it('refuses an attachment larger than the limit by the size Graph gives, without reading it', async () => {
    const { ctx } = get();
    const { tenant, id } = await graphMailbox(true);
    const { attachmentMaxBytes } = ctx.config.email;
    const messageId = `AAMk-big-${tenant.id}`;
    graph.deliver({
      id: messageId,
      internetMessageId: `<big-${tenant.id}@kunde.example>`,
      subject: 'Groß',
      from: 'gross@kunde.example',
      text: 'Hier die Preisliste, stimmt das so?',
      attachments: [
        // Graph says 6 MB: the content is not decoded, whatever it holds.
        {
          kind: 'file',
          name: 'scan.pdf',
          contentType: 'application/pdf',
          content: PDF,
          size: 6 * 1024 * 1024,
        },
        { kind: 'file', name: 'preise.pdf', contentType: 'application/pdf', content: PDF },
      ],
    });
    const decoded = vi.spyOn(Buffer, 'from');
    try {
      ctx.config.email.attachmentMaxBytes = 5 * 1024 * 1024;
      expect(await graphRound(ctx, id, null)).toBe(1);
      const base64 = PDF.toString('base64');
      // Only the small one's content was decoded.
      expect(
        decoded.mock.calls.filter((args: unknown[]) => args[0] === base64 && args[1] === 'base64'),
      ).toHaveLength(1);
    } finally {
      decoded.mockRestore();
      ctx.config.email.attachmentMaxBytes = attachmentMaxBytes;
    }
    const [inbound] = await inboundOf(id);
    expect(inbound!.attachments!.map((a) => [a.name, a.size, a.read, a.reason])).toEqual([
      ['scan.pdf', 6 * 1024 * 1024, false, 'too_large'],
      ['preise.pdf', PDF.length, true, null],
    ]);
  });

  it('tries a mail again when its attachments cannot be fetched (5xx): nothing lost, nothing answered twice', async () => {
    const { ctx } = get();
    const { tenant, id } = await graphMailbox(true);
    const messageId = deliver(tenant.id, 'graph-retry');
    graph.failAttachments(503);
    try {
      expect(await graphRound(ctx, id, null)).toBe(0);
    } finally {
      graph.failAttachments(null);
    }
    expect(await inboundOf(id)).toHaveLength(0);
    const [box] = await ctx.db.query<{ last_error: string | null; cursor: { delta_link?: string } }>(
      'SELECT last_error, cursor FROM mailboxes WHERE id = $1',
      [id],
    );
    expect(box!.last_error).toContain('attachments query failed');
    expect(box!.cursor.delta_link).toBeUndefined();
    expect(graph.calls.some((c) => c.method === 'PATCH' && c.path.endsWith(messageId))).toBe(false);

    // The next round sees the mail again and answers it with its attachments.
    expect(await graphRound(ctx, id, null)).toBe(1);
    const rows = await inboundOf(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.status).toBe('answered');
    expect(rows[0]!.attachments!.filter((a) => a.read).map((a) => a.name)).toEqual([
      'preise.pdf',
      'werkstatt.docx',
    ]);
    expect(await userMessageOf(rows[0]!.conversation_id!)).toContain('49 Euro');
    expect(graph.calls.some((c) => c.method === 'PATCH' && c.path.endsWith(messageId))).toBe(true);
    const [after] = await ctx.db.query<{ last_error: string | null }>(
      'SELECT last_error FROM mailboxes WHERE id = $1',
      [id],
    );
    expect(after!.last_error).toBeNull();
    // Settled: a further round finds nothing new.
    expect(await graphRound(ctx, id, null)).toBe(0);
    expect(await inboundOf(id)).toHaveLength(1);
  });
});
