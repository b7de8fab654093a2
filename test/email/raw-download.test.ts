import { afterAll, beforeAll, expect, it } from 'vitest';
import { clearGraphTokens } from '../../src/modules/mailboxes/connectors/graph.js';
import { parseRawMail } from '../../src/modules/mailboxes/connectors/parse.js';
import { graphRound } from '../../src/modules/mailboxes/connectors/sync.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { startFakeGraph, type FakeGraph } from './graph-server.js';
import { addMailbox, POSTMARK_MAILBOX } from './mailbox-setup.js';

let graph: FakeGraph;
beforeAll(async () => {
  graph = await startFakeGraph();
});
afterAll(async () => {
  await graph?.close();
});

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describeApp('the raw mail for download, for every connector kind', (get) => {
  async function download(tenant: TenantFixture, botId: string, mailboxId: string, messageId: string) {
    const [row] = await get().db.query<{ id: string }>(
      'SELECT id FROM email_inbound WHERE mailbox_id = $1 AND message_id = $2',
      [mailboxId, messageId],
    );
    expect(row, 'mail stored').toBeDefined();
    const res = await get().app.inject({
      method: 'GET',
      url: `/api/bots/${botId}/mailboxes/${mailboxId}/mails/${row!.id}/raw`,
      headers: tenant.owner.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('message/rfc822');
    return res.rawPayload;
  }

  async function graphSetUp() {
    const { ctx, app } = get();
    ctx.config.email.graphLoginUrl = graph.loginUrl;
    ctx.config.email.graphApiUrl = graph.apiUrl;
    clearGraphTokens();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const res = await app.inject({
      method: 'POST',
      url: `/api/bots/${bot.id}/mailboxes`,
      headers: tenant.owner.headers,
      payload: {
        kind: 'graph',
        name: 'M365',
        address: `raw-${tenant.id.slice(0, 8)}@contoso.example`,
        settings: { tenant_id: 'contoso.onmicrosoft.com', client_id: '11111111-2222-3333-4444-555555555555' },
        secrets: { client_secret: 'graph-client-secret-value' },
      },
    });
    expect(res.statusCode).toBe(201);
    return { tenant, bot, id: res.json().id as string };
  }

  it("Graph: the message's MIME ($value) is kept byte for byte", async () => {
    const { tenant, bot, id } = await graphSetUp();
    const messageId = `<graph-raw-${tenant.id}@kunde.example>`;
    const mime = Buffer.from(
      [
        'Received: from mx.kunde.example by outlook.office365.com',
        'From: Kunde <kunde@kunde.example>',
        `To: raw@contoso.example`,
        'Subject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?=',
        `Message-ID: ${messageId}`,
        'MIME-Version: 1.0',
        'Content-Type: multipart/alternative; boundary="xyz"',
        '',
        '--xyz',
        'Content-Type: text/plain; charset=utf-8',
        '',
        'Haben Sie samstags offen?',
        '--xyz',
        'Content-Type: text/html; charset=utf-8',
        '',
        '<p>Haben Sie samstags offen?</p>',
        '--xyz--',
        '',
      ].join('\r\n'),
    );
    graph.deliver({
      id: `AAMk-raw-${tenant.id}`,
      internetMessageId: messageId,
      subject: 'Grüße',
      from: 'kunde@kunde.example',
      text: 'Haben Sie samstags offen?',
      mime,
    });
    expect(await graphRound(get().ctx, id, null)).toBe(1);
    expect((await download(tenant, bot.id, id, messageId)).equals(mime)).toBe(true);
  });

  it('Graph: without $value the mail is rebuilt from its properties and marked so', async () => {
    const { tenant, bot, id } = await graphSetUp();
    const messageId = `<graph-rebuilt-${tenant.id}@kunde.example>`;
    graph.failMime(503);
    try {
      graph.deliver({
        id: `AAMk-rebuilt-${tenant.id}`,
        internetMessageId: messageId,
        subject: 'Parkplätze',
        from: 'kunde@kunde.example',
        fromName: 'Karla Kunde',
        replyTo: ['karla@privat.example'],
        cc: ['kollege@kunde.example'],
        text: 'Gibt es Parkplätze vor dem Studio?',
        headers: [
          { name: 'Date', value: 'Thu, 26 Nov 2026 08:00:00 +0000' },
          { name: 'X-Mailer', value: 'Outlook 16' },
        ],
      });
      expect(await graphRound(get().ctx, id, null)).toBe(1);
    } finally {
      graph.failMime(null);
    }
    const raw = await download(tenant, bot.id, id, messageId);
    expect(raw.toString('utf8')).toContain('X-Parley-Rebuilt: graph-json');
    const parsed = await parseRawMail(raw);
    expect(parsed).toMatchObject({ messageId, from: 'kunde@kunde.example', subject: 'Parkplätze' });
    expect(parsed.text.trim()).toBe('Gibt es Parkplätze vor dem Studio?');
    expect(parsed.addresses?.replyTo).toEqual([{ name: '', address: 'karla@privat.example' }]);
    expect(parsed.addresses?.cc).toEqual([{ name: '', address: 'kollege@kunde.example' }]);
    expect(parsed.headers['x-mailer']).toEqual(['Outlook 16']);
    expect(parsed.headers['date']?.[0]).toContain('26 Nov 2026 08:00:00');
  });

  function postmarkJson(messageId: string, extra: Record<string, unknown> = {}) {
    return {
      From: 'kunde@kunde.example',
      FromName: 'Kim Kunde',
      FromFull: { Email: 'kunde@kunde.example', Name: 'Kim Kunde' },
      To: 'hello@example.test',
      ToFull: [{ Email: 'hello@example.test', Name: 'Studio' }],
      Cc: '',
      CcFull: [],
      ReplyTo: 'kim@privat.example',
      Subject: 'Kursplan',
      MessageID: '73e6d360-66eb-11e1-8e72-a8904824019b',
      Date: 'Thu, 26 Nov 2026 08:00:00 +0000',
      TextBody: 'Schicken Sie mir den Kursplan?',
      HtmlBody: '<p>Schicken Sie mir den Kursplan?</p>',
      Headers: [
        { Name: 'Message-ID', Value: messageId },
        { Name: 'X-Spam-Status', Value: 'No' },
      ],
      Attachments: [
        {
          Name: 'anfrage.pdf',
          ContentType: 'application/pdf',
          Content: Buffer.from('%PDF-1.4 x').toString('base64'),
        },
      ],
      ...extra,
    };
  }

  async function postmarkSetUp() {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const id = await addMailbox(get().app, tenant, bot.id, POSTMARK_MAILBOX);
    const deliver = async (payload: object) => {
      const res = await get().app.inject({
        method: 'POST',
        url: `/v1/email/inbound/postmark/${id}`,
        headers: { authorization: basic('pm', 'inbound-password-123') },
        payload,
      });
      expect(res.statusCode, res.body).toBe(200);
    };
    return { tenant, bot, id, deliver };
  }

  it("Postmark: RawEmail (the stream's raw content) is kept byte for byte", async () => {
    const { tenant, bot, id, deliver } = await postmarkSetUp();
    const messageId = `<pm-raw-${id}@kunde.example>`;
    const rawEmail = [
      'Received: from mx.kunde.example',
      'From: Kim Kunde <kunde@kunde.example>',
      'To: hello@example.test',
      'Subject: Kursplan',
      `Message-ID: ${messageId}`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Schicken Sie mir den Kursplan?',
      '',
    ].join('\r\n');
    await deliver(postmarkJson(messageId, { RawEmail: rawEmail }));
    expect((await download(tenant, bot.id, id, messageId)).toString('utf8')).toBe(rawEmail);
  });

  it('Postmark: without RawEmail a faithful MIME is rebuilt from the JSON (addresses, date, parts, attachments)', async () => {
    const { tenant, bot, id, deliver } = await postmarkSetUp();
    const messageId = `<pm-json-${id}@kunde.example>`;
    await deliver(postmarkJson(messageId));
    const raw = await download(tenant, bot.id, id, messageId);
    expect(raw.toString('utf8')).toContain('X-Parley-Rebuilt: postmark-json');
    const parsed = await parseRawMail(raw);
    expect(parsed).toMatchObject({ messageId, from: 'kunde@kunde.example', subject: 'Kursplan' });
    expect(parsed.addresses?.from).toEqual([{ name: 'Kim Kunde', address: 'kunde@kunde.example' }]);
    expect(parsed.addresses?.replyTo).toEqual([{ name: '', address: 'kim@privat.example' }]);
    expect(parsed.to).toEqual(['hello@example.test']);
    expect(parsed.text.trim()).toBe('Schicken Sie mir den Kursplan?');
    expect(parsed.html).toContain('<p>Schicken Sie mir den Kursplan?</p>');
    expect(parsed.headers['x-spam-status']).toEqual(['No']);
    expect(parsed.headers['date']?.[0]).toContain('26 Nov 2026 08:00:00');
    expect(parsed.attachments).toHaveLength(1);
    expect(parsed.attachments![0]).toMatchObject({ filename: 'anfrage.pdf', contentType: 'application/pdf' });
    expect(parsed.attachments![0]!.content.toString()).toBe('%PDF-1.4 x');
  });
});
