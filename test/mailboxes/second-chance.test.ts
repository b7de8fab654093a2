import { afterAll, beforeAll, expect, it } from 'vitest';
import { receiveMail } from '../../src/modules/mailboxes/connectors/inbound.js';
import { parseRawMail } from '../../src/modules/mailboxes/connectors/parse.js';
import { createEmailSender } from '../../src/modules/mailboxes/connectors/sender.js';
import { findMailboxById } from '../../src/modules/mailboxes/repository.js';
import { OutboxWorker } from '../../src/modules/outbox/worker.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { addMailbox } from '../email/mailbox-setup.js';
import { startSmtpRecorder, type SmtpRecorder } from '../email/smtp-recorder.js';

let smtp: SmtpRecorder;
beforeAll(async () => {
  smtp = await startSmtpRecorder();
});
afterAll(async () => {
  await smtp?.close();
});

let sequence = 0;
function raw(headers: string[], body: string): Buffer {
  sequence += 1;
  return Buffer.from(
    [
      ...headers,
      'To: info@studio.example',
      `Subject: Frage ${sequence}`,
      `Message-ID: <sc-${Date.now()}-${sequence}@kunde.example>`,
      'Date: Thu, 26 Nov 2026 08:00:00 +0000',
      'Content-Type: text/plain; charset=utf-8',
      '',
      `${body} (${sequence})`,
      '',
    ].join('\r\n'),
  );
}

describeApp('a second chance for mails not answered; delivery status', (get) => {
  async function setUp() {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({});
    const id = await addMailbox(get().app, tenant, bot.id, {
      kind: 'postmark',
      name: 'Studio',
      address: 'info@studio.example',
      settings: {
        inbound_username: 'postmark',
        smtp_host: '127.0.0.1',
        smtp_port: smtp.port,
        smtp_tls: false,
        username: 'smtp-user',
      },
      secrets: { inbound_password: 'inbound-password-123', password: 'smtp-password' },
    });
    const mailbox = (await findMailboxById(get().db, id))!;
    const base = `/api/bots/${bot.id}/mailboxes/${id}`;
    return { tenant, bot, mailbox, base };
  }

  const send = () =>
    new OutboxWorker({ db: get().ctx.db, senders: [createEmailSender(get().ctx)] }).sendDue();

  it('answers a wrongly skipped mail once, marked forced; the list shows id, sender, search and the delivery', async () => {
    const { ctx, app } = get();
    const { tenant, mailbox, base } = await setUp();
    // A person whose address looks like a robot's: skipped.
    const skipped = await receiveMail(
      ctx,
      mailbox,
      await parseRawMail(raw(['From: Bounce Meier <bounces@meier.example>'], 'Ich möchte einen Kurs buchen')),
    );
    expect(skipped).toMatchObject({ status: 'skipped', reason: 'noreply_sender' });
    const other = await receiveMail(
      ctx,
      mailbox,
      await parseRawMail(raw(['From: Anna <anna@kunde.example>'], 'Wann ist offen?')),
    );
    expect(other.status).toBe('answered');

    const found = await app.inject({
      method: 'GET',
      url: `${base}/mails?q=MEIER`,
      headers: tenant.owner.headers,
    });
    expect(found.statusCode).toBe(200);
    expect(found.json().data).toHaveLength(1);
    expect(found.json().data[0]).toMatchObject({
      id: skipped.inboundId,
      from_address: 'bounces@meier.example',
      message_id: expect.stringMatching(/^<sc-.*@kunde\.example>$/),
      skip_reason: 'noreply_sender',
      second_chance: null,
      has_raw: true,
      delivery: null,
    });

    const viewer = await tenant.user('viewer');
    const refused = await app.inject({
      method: 'POST',
      url: `${base}/mails/${skipped.inboundId}/answer`,
      headers: viewer.headers,
    });
    expect(refused.statusCode).toBe(403);
    const agent = await tenant.user('agent');
    const answered = await app.inject({
      method: 'POST',
      url: `${base}/mails/${skipped.inboundId}/answer`,
      headers: agent.headers,
    });
    expect(answered.statusCode, answered.body).toBe(200);
    expect(answered.json()).toMatchObject({ status: 'answered', conversation_id: expect.any(String) });
    const again = await app.inject({
      method: 'POST',
      url: `${base}/mails/${skipped.inboundId}/answer`,
      headers: agent.headers,
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('mail_not_skipped');
    const [conversation] = await ctx.db.query<{ metadata: { email?: { forced?: boolean } } }>(
      'SELECT metadata FROM conversations WHERE id = $1',
      [answered.json().conversation_id],
    );
    expect(conversation!.metadata.email?.forced).toBe(true);

    await send();
    const list = await app.inject({ method: 'GET', url: `${base}/mails`, headers: tenant.owner.headers });
    const forced = list.json().data.find((m: { id: string }) => m.id === skipped.inboundId);
    expect(forced).toMatchObject({
      status: 'answered',
      second_chance: 'answered',
      delivery: { status: 'sent', to: 'bounces@meier.example' },
    });
  });

  it('sends a skipped mail to the inbox: a conversation waiting for a person with the mail', async () => {
    const { ctx, app } = get();
    const { tenant, mailbox, base } = await setUp();
    const skipped = await receiveMail(
      ctx,
      mailbox,
      await parseRawMail(
        raw(
          ['From: Newsletter-Leserin <leserin@kunde.example>', 'List-Id: <liste.kunde.example>'],
          'Eine Frage',
        ),
      ),
    );
    expect(skipped.status).toBe('skipped');
    const res = await app.inject({
      method: 'POST',
      url: `${base}/mails/${skipped.inboundId}/inbox`,
      headers: tenant.owner.headers,
    });
    expect(res.statusCode, res.body).toBe(200);
    const [row] = await ctx.db.query<{
      status: string;
      assigned_user_id: string | null;
      sender_id: string;
      channel: string;
    }>('SELECT status, assigned_user_id, sender_id, channel FROM conversations WHERE id = $1', [
      res.json().conversation_id,
    ]);
    expect(row).toEqual({
      status: 'handed_over',
      assigned_user_id: null,
      sender_id: 'leserin@kunde.example',
      channel: 'email',
    });
    const messages = await ctx.db.query<{ content: string; role: string }>(
      'SELECT content, role FROM messages WHERE conversation_id = $1',
      [res.json().conversation_id],
    );
    expect(messages).toHaveLength(1);
    expect(messages[0]!.content).toContain('Eine Frage');
    const twice = await app.inject({
      method: 'POST',
      url: `${base}/mails/${skipped.inboundId}/inbox`,
      headers: tenant.owner.headers,
    });
    expect(twice.statusCode).toBe(409);
  });

  it('never answers a mail whose sender was refused, even when asked', async () => {
    const { ctx, app } = get();
    const { tenant, mailbox, base } = await setUp();
    const skipped = await receiveMail(
      ctx,
      mailbox,
      await parseRawMail(raw(['From: a@kunde.example, other@evil.example'], 'Hallo')),
    );
    expect(skipped).toMatchObject({ status: 'skipped', reason: 'address_count' });
    const res = await app.inject({
      method: 'POST',
      url: `${base}/mails/${skipped.inboundId}/answer`,
      headers: tenant.owner.headers,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('mail_address_refused');
  });

  it('raw mail: owner and admin download it; editor, agent and viewer 403; another tenant 404', async () => {
    const { ctx, app } = get();
    const { tenant, mailbox, base } = await setUp();
    const mail = raw(['From: Anna <anna@kunde.example>'], 'Gibt es Gutscheine?');
    const stored = await receiveMail(ctx, mailbox, await parseRawMail(mail));
    const url = `${base}/mails/${stored.inboundId}/raw`;
    for (const role of ['admin'] as const) {
      const user = await tenant.user(role);
      const res = await app.inject({ method: 'GET', url, headers: user.headers });
      expect(res.statusCode).toBe(200);
    }
    const owner = await app.inject({ method: 'GET', url, headers: tenant.owner.headers });
    expect(owner.statusCode).toBe(200);
    expect(owner.headers['content-type']).toContain('message/rfc822');
    expect(owner.rawPayload.equals(mail)).toBe(true);
    for (const role of ['editor', 'agent', 'viewer'] as const) {
      const user = await tenant.user(role);
      const res = await app.inject({ method: 'GET', url, headers: user.headers });
      expect(res.statusCode, role).toBe(403);
    }
    const unauthenticated = await app.inject({ method: 'GET', url });
    expect(unauthenticated.statusCode).toBe(401);
    const stranger = await buildTenant(ctx);
    const foreign = await app.inject({ method: 'GET', url, headers: stranger.owner.headers });
    expect(foreign.statusCode).toBe(404);
    const foreignAnswer = await app.inject({
      method: 'POST',
      url: `${base}/mails/${stored.inboundId}/answer`,
      headers: stranger.owner.headers,
    });
    expect(foreignAnswer.statusCode).toBe(404);
    const unknown = await app.inject({
      method: 'GET',
      url: `${base}/mails/00000000-0000-4000-8000-000000000000/raw`,
      headers: tenant.owner.headers,
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('delivery: deferred with the server words, then sent; a DSN for our Message-ID marks it bounced and is never answered', async () => {
    const { ctx, app } = get();
    const { tenant, mailbox, base } = await setUp();
    // Replies queued by earlier tests go first, so the refusal below meets this one.
    await send();
    const outcome = await receiveMail(
      ctx,
      mailbox,
      await parseRawMail(raw(['From: Paul <paul@kunde.example>'], 'Haben Sie Parkplätze?')),
    );
    expect(outcome.status).toBe('answered');
    smtp.refuseNext(1, 451);
    await send();
    const delivery = async () =>
      (await app.inject({ method: 'GET', url: `${base}/mails`, headers: tenant.owner.headers }))
        .json()
        .data.find((m: { id: string }) => m.id === outcome.inboundId).delivery;
    expect(await delivery()).toMatchObject({
      status: 'deferred',
      detail: expect.stringContaining('Try again later'),
    });
    await ctx.db
      .query(`UPDATE outbox SET next_attempt_at = now() WHERE tenant_id = $1`, [tenant.id])
      .catch(() => undefined);
    await new OutboxWorker({
      db: ctx.db,
      senders: [createEmailSender(ctx)],
      now: () => new Date(Date.now() + 3600_000),
    }).sendDue();
    expect(await delivery()).toMatchObject({ status: 'sent' });

    const [reply] = await ctx.db.query<{ message_id: string }>(
      'SELECT message_id FROM email_outbound WHERE inbound_id = $1',
      [outcome.inboundId],
    );
    const dsn = Buffer.from(
      [
        'From: Mail Delivery System <MAILER-DAEMON@mx.kunde.example>',
        'To: info@studio.example',
        'Subject: Undelivered Mail Returned to Sender',
        `Message-ID: <dsn-${Date.now()}@mx.kunde.example>`,
        'Auto-Submitted: auto-replied',
        'MIME-Version: 1.0',
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b"',
        '',
        '--b',
        'Content-Type: text/plain',
        '',
        'I am sorry to have to inform you that your message could not be delivered.',
        '--b',
        'Content-Type: message/delivery-status',
        '',
        'Reporting-MTA: dns; mx.kunde.example',
        '',
        'Final-Recipient: rfc822; paul@kunde.example',
        'Action: failed',
        'Status: 5.1.1',
        'Diagnostic-Code: smtp; 550 5.1.1 <paul@kunde.example>: Recipient address rejected: User unknown',
        '--b',
        'Content-Type: text/rfc822-headers',
        '',
        `Message-ID: ${reply!.message_id}`,
        'From: Studio <info@studio.example>',
        '--b--',
        '',
      ].join('\r\n'),
    );
    const bounce = await receiveMail(ctx, mailbox, await parseRawMail(dsn));
    expect(bounce.status).toBe('skipped');
    expect(await delivery()).toMatchObject({
      status: 'bounced',
      detail: expect.stringContaining('User unknown'),
    });
    const warnings = await app.inject({
      method: 'GET',
      url: '/api/mail-bounces?address=Paul@kunde.example',
      headers: tenant.owner.headers,
    });
    expect(warnings.json().data).toEqual([
      { address: 'paul@kunde.example', detail: expect.stringContaining('550'), at: expect.any(String) },
    ]);
    const stranger = await buildTenant(ctx);
    const none = await app.inject({
      method: 'GET',
      url: '/api/mail-bounces?address=paul@kunde.example',
      headers: stranger.owner.headers,
    });
    expect(none.json().data).toEqual([]);
    const conversationMails = await app.inject({
      method: 'GET',
      url: `/api/conversations/${(outcome as { conversationId: string }).conversationId}/mails`,
      headers: tenant.owner.headers,
    });
    expect(conversationMails.json().bounced).toHaveLength(1);

    // The warning on the contact: the person the reply went to, with the date and the server's words.
    const found = await app.inject({
      method: 'GET',
      url: '/api/contacts?q=paul@kunde.example',
      headers: tenant.owner.headers,
    });
    const contactId = (found.json().data as { id: string; email: string }[]).find(
      (c) => c.email === 'paul@kunde.example',
    )!.id;
    const contact = await app.inject({
      method: 'GET',
      url: `/api/contacts/${contactId}`,
      headers: (await tenant.user('agent')).headers,
    });
    expect(contact.statusCode).toBe(200);
    expect(contact.json().email_bounced).toEqual({
      address: 'paul@kunde.example',
      detail: expect.stringContaining('User unknown'),
      at: expect.any(String),
    });
    // Editing the contact answers the same warning; an address changed away from the bounce clears it.
    const kept = await app.inject({
      method: 'PUT',
      url: `/api/contacts/${contactId}`,
      headers: tenant.owner.headers,
      payload: { name: 'Paul' },
    });
    expect(kept.json().email_bounced).toMatchObject({ address: 'paul@kunde.example' });
    const changed = await app.inject({
      method: 'PUT',
      url: `/api/contacts/${contactId}`,
      headers: tenant.owner.headers,
      payload: { email: 'paul.neu@kunde.example' },
    });
    expect(changed.json().email_bounced).toBeNull();
    // A contact of the same address in another tenant sees nothing of it; the contact itself is 404 there.
    const strangers = await app.inject({
      method: 'POST',
      url: '/api/contacts',
      headers: stranger.owner.headers,
      payload: { email: 'paul@kunde.example' },
    });
    const theirs = await app.inject({
      method: 'GET',
      url: `/api/contacts/${strangers.json().id}`,
      headers: stranger.owner.headers,
    });
    expect(theirs.json().email_bounced).toBeNull();
    expect(
      (
        await app.inject({
          method: 'GET',
          url: `/api/contacts/${contactId}`,
          headers: stranger.owner.headers,
        })
      ).statusCode,
    ).toBe(404);
    expect((await app.inject({ method: 'GET', url: `/api/contacts/${contactId}` })).statusCode).toBe(401);
  });
});
