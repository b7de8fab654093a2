import { afterAll, beforeAll, expect, it } from 'vitest';
import { clearGraphTokens } from '../../src/modules/mailboxes/connectors/graph.js';
import { createEmailSender } from '../../src/modules/mailboxes/connectors/sender.js';
import { graphRound } from '../../src/modules/mailboxes/connectors/sync.js';
import { OutboxWorker } from '../../src/modules/outbox/worker.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { startFakeGraph, type FakeGraph } from './graph-server.js';
import { startSmtpRecorder, type SmtpRecorder } from './smtp-recorder.js';
import { addMailbox, POSTMARK_MAILBOX } from './mailbox-setup.js';

let graph: FakeGraph;
let smtp: SmtpRecorder;

beforeAll(async () => {
  graph = await startFakeGraph();
  smtp = await startSmtpRecorder();
});
afterAll(async () => {
  await graph?.close();
  await smtp?.close();
});

describeApp('e-mail through Microsoft Graph (local server with Graph shapes)', (get) => {
  async function graphMailbox(tenant: TenantFixture, botId: string, address: string) {
    const res = await get().app.inject({
      method: 'POST',
      url: `/api/bots/${botId}/mailboxes`,
      headers: tenant.owner.headers,
      payload: {
        kind: 'graph',
        name: 'M365',
        address,
        settings: { tenant_id: 'contoso.onmicrosoft.com', client_id: '11111111-2222-3333-4444-555555555555' },
        secrets: { client_secret: 'graph-client-secret-value' },
        secret_expires_at: new Date(Date.now() + 20 * 86_400_000).toISOString(),
      },
    });
    expect(res.statusCode).toBe(201);
    return res.json().id as string;
  }

  it('reads new mail by delta, answers once by createReply + send, marks it read; one token for two mailboxes', async () => {
    const { ctx } = get();
    ctx.config.email.graphLoginUrl = graph.loginUrl;
    ctx.config.email.graphApiUrl = graph.apiUrl;
    clearGraphTokens();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const first = await graphMailbox(tenant, bot.id, `info-${tenant.id.slice(0, 8)}@contoso.example`);
    const second = await graphMailbox(tenant, bot.id, `sales-${tenant.id.slice(0, 8)}@contoso.example`);
    const tokensBefore = graph.tokenRequests;
    const messageId = `AAMk-${tenant.id}`;
    graph.deliver({
      id: messageId,
      internetMessageId: `<graph-${tenant.id}@kunde.example>`,
      subject: 'Termin',
      from: 'kunde@kunde.example',
      text: 'Kann ich morgen vorbeikommen?',
    });
    expect(await graphRound(ctx, first, null)).toBe(1);
    expect(await graphRound(ctx, second, null)).toBeGreaterThanOrEqual(0);
    // One app registration serves both mailboxes: one token, cached.
    expect(graph.tokenRequests - tokensBefore).toBe(1);
    const [row] = await ctx.db.query<{ status: string; provider_id: string }>(
      'SELECT status, provider_id FROM email_inbound WHERE mailbox_id = $1',
      [first],
    );
    expect(row).toMatchObject({ status: 'answered', provider_id: messageId });
    expect(
      graph.calls.some(
        (c) => c.method === 'PATCH' && c.path.endsWith(messageId) && c.body === '{"isRead":true}',
      ),
    ).toBe(true);
    const [box] = await ctx.db.query<{ cursor: { delta_link?: string }; token_expires_at: Date | null }>(
      'SELECT cursor, token_expires_at FROM mailboxes WHERE id = $1',
      [first],
    );
    expect(box!.cursor.delta_link).toContain('$deltatoken=');
    expect(box!.token_expires_at).not.toBeNull();

    const worker = new OutboxWorker({ db: ctx.db, senders: [createEmailSender(ctx)] });
    const sentBefore = graph.sent.length;
    expect((await worker.sendDue()).sent).toBeGreaterThanOrEqual(1);
    const reply = graph.sent.slice(sentBefore).find((s) => s.replyTo === messageId);
    expect(reply?.comment.length).toBeGreaterThan(0);
    expect(reply?.headers).toEqual([
      { name: 'X-Auto-Submitted', value: 'auto-replied' },
      { name: 'X-Auto-Response-Suppress', value: 'All' },
    ]);
    // The next round sees nothing new, and nothing is sent again.
    expect(await graphRound(ctx, first, null)).toBe(0);
    expect((await worker.sendDue()).claimed).toBe(0);
    expect(graph.sent.filter((s) => s.replyTo === messageId)).toHaveLength(1);
  });

  it('records a refused token in words as the last error', async () => {
    const { ctx } = get();
    ctx.config.email.graphLoginUrl = graph.loginUrl;
    ctx.config.email.graphApiUrl = graph.apiUrl;
    clearGraphTokens();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const id = await graphMailbox(tenant, bot.id, 'expired@contoso.example');
    graph.refuseTokens(
      "AADSTS7000222: The provided client secret keys for app '11111111-2222-3333-4444-555555555555' are expired.\r\nTrace ID: x",
    );
    try {
      await graphRound(ctx, id, null);
      const check = await get().app.inject({
        method: 'POST',
        url: `/api/bots/${bot.id}/mailboxes/${id}/test`,
        headers: tenant.owner.headers,
      });
      // In words with what to do; the raw detail behind it.
      expect(check.json()).toMatchObject({
        ok: false,
        error: expect.stringContaining('Client-Secret ab'),
        error_code: 'graph_secret',
        error_en: expect.stringContaining('Create a new one in Entra'),
        error_detail: expect.stringContaining('AADSTS7000222'),
      });
    } finally {
      graph.refuseTokens(null);
    }
    const shown = await get().app.inject({
      method: 'GET',
      url: `/api/bots/${bot.id}/mailboxes/${id}`,
      headers: tenant.owner.headers,
    });
    expect(shown.json().health).toMatchObject({
      last_error: expect.stringContaining('Client-Secret'),
      last_error_code: 'graph_secret',
      last_error_detail: expect.stringContaining('are expired'),
      warning: 'secret_expiring',
    });
    expect(shown.body).not.toContain('graph-client-secret-value');
  });
});

describeApp('e-mail through the Postmark inbound webhook', (get) => {
  const basic = (user: string, password: string) =>
    `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

  async function postmarkMailbox() {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const id = await addMailbox(get().app, tenant, bot.id, {
      ...POSTMARK_MAILBOX,
      settings: {
        inbound_username: 'postmark',
        smtp_host: '127.0.0.1',
        smtp_port: smtp.port,
        smtp_tls: false,
        username: 'smtp-user',
      },
    });
    return { tenant, bot, id };
  }

  /** Postmark's inbound JSON (https://postmarkapp.com/developer/webhooks/inbound-webhook). */
  function inboundJson(messageId: string, extraHeaders: Array<{ Name: string; Value: string }> = []) {
    return {
      FromName: 'Kunde',
      MessageStream: 'inbound',
      From: 'kunde@kunde.example',
      FromFull: { Email: 'kunde@kunde.example', Name: 'Kunde', MailboxHash: '' },
      To: 'hello@example.test',
      ToFull: [{ Email: 'hello@example.test', Name: '', MailboxHash: '' }],
      Cc: '',
      CcFull: [],
      Bcc: '',
      BccFull: [],
      OriginalRecipient: 'hello@example.test',
      Subject: 'Preise',
      MessageID: '73e6d360-66eb-11e1-8e72-a8904824019b',
      ReplyTo: '',
      MailboxHash: '',
      Date: 'Thu, 26 Nov 2026 08:00:00 +0000',
      TextBody:
        'Was kostet ein Kurs?\n\nAm 25.11.2026 schrieb Studio <hello@example.test>:\n> Alte Nachricht',
      HtmlBody: '',
      StrippedTextReply: 'Was kostet ein Kurs?',
      Tag: '',
      Headers: [{ Name: 'Message-ID', Value: messageId }, ...extraHeaders],
      Attachments: [],
    };
  }

  it('401 without or with wrong credentials and for an unknown mailbox', async () => {
    const { id } = await postmarkMailbox();
    const url = `/v1/email/inbound/postmark/${id}`;
    const payload = inboundJson('<x@kunde.example>');
    for (const authorization of [
      undefined,
      basic('postmark', 'wrong-password-123'),
      basic('other', 'inbound-password-123'),
      'Bearer x',
    ]) {
      const res = await get().app.inject({
        method: 'POST',
        url,
        payload,
        headers: authorization ? { authorization } : {},
      });
      expect(res.statusCode, String(authorization)).toBe(401);
    }
    const unknown = await get().app.inject({
      method: 'POST',
      url: '/v1/email/inbound/postmark/00000000-0000-4000-8000-000000000000',
      payload,
      headers: { authorization: basic('postmark', 'inbound-password-123') },
    });
    expect(unknown.statusCode).toBe(401);
    const rows = await get().db.query('SELECT 1 FROM email_inbound WHERE mailbox_id = $1', [id]);
    expect(rows).toHaveLength(0);
  });

  it('answers a delivered mail once (a retried delivery is a duplicate) and skips an auto-reply', async () => {
    const { ctx } = get();
    const { id } = await postmarkMailbox();
    const url = `/v1/email/inbound/postmark/${id}`;
    const headers = { authorization: basic('postmark', 'inbound-password-123') };
    const messageId = `<pm-${id}@kunde.example>`;
    const first = await get().app.inject({ method: 'POST', url, headers, payload: inboundJson(messageId) });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ status: 'answered' });
    const again = await get().app.inject({ method: 'POST', url, headers, payload: inboundJson(messageId) });
    expect(again.json()).toEqual({ status: 'duplicate' });
    const robot = await get().app.inject({
      method: 'POST',
      url,
      headers,
      payload: inboundJson(`<ooo-${id}@kunde.example>`, [{ Name: 'Auto-Submitted', Value: 'auto-replied' }]),
    });
    expect(robot.json()).toEqual({ status: 'skipped' });
    const [stored] = await ctx.db.query<{ stripped_text: string; body_text: string }>(
      'SELECT stripped_text, body_text FROM email_inbound WHERE message_id = $1',
      [messageId],
    );
    expect(stored!.stripped_text).toBe('Was kostet ein Kurs?');
    expect(stored!.body_text).toContain('Alte Nachricht');
    const before = smtp.received.length;
    await new OutboxWorker({ db: ctx.db, senders: [createEmailSender(ctx)] }).sendDue();
    expect(smtp.received.length).toBe(before + 1);
    expect(smtp.received.at(-1)!.parsed.inReplyTo).toBe(messageId);
  });
});
