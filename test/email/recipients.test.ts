import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ownMessageId } from '../../src/modules/email/threading.js';
import { clearGraphTokens } from '../../src/modules/mailboxes/connectors/graph.js';
import { receiveMail } from '../../src/modules/mailboxes/connectors/inbound.js';
import { parseRawMail } from '../../src/modules/mailboxes/connectors/parse.js';
import { createEmailSender } from '../../src/modules/mailboxes/connectors/sender.js';
import { graphRound } from '../../src/modules/mailboxes/connectors/sync.js';
import { findMailboxById, type MailboxRow } from '../../src/modules/mailboxes/repository.js';
import { OutboxWorker } from '../../src/modules/outbox/worker.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { startFakeGraph, type FakeGraph } from './graph-server.js';
import { addMailbox } from './mailbox-setup.js';
import { startSmtpRecorder, type SmtpRecorder } from './smtp-recorder.js';

const FORMS = join(import.meta.dirname, 'fixtures', 'contact-forms');

/** The contact-form fixtures and the customer each one is answered to. */
const CONTACT_FORMS: [string, string][] = [
  ['contact-form-7.eml', 'anna.becker@gmail.example'],
  ['typeform.eml', 'jonas.weber@web.example'],
  ['jotform.eml', 'maria.rossi@libero.example'],
  ['webflow.eml', 'tom.schmidt@gmx.example'],
  ['gravity-forms.eml', 'eva.keller@outlook.example'],
];

const CONTACT_NAMES: Record<string, string> = {
  'anna.becker@gmail.example': 'Anna Becker',
  'maria.rossi@libero.example': 'Maria Rossi',
  'eva.keller@outlook.example': 'Eva Keller',
};

let smtp: SmtpRecorder;
let graph: FakeGraph;
beforeAll(async () => {
  smtp = await startSmtpRecorder();
  graph = await startFakeGraph();
});
afterAll(async () => {
  await smtp?.close();
  await graph?.close();
});

let sequence = 0;
function raw(headers: string[], body = 'Haben Sie am Samstag geöffnet?'): Buffer {
  sequence += 1;
  return Buffer.from(
    [
      ...headers,
      'To: info@studio-lena.example',
      'Subject: Frage',
      `Message-ID: <r-${Date.now()}-${sequence}@kunde.example>`,
      'Date: Thu, 26 Nov 2026 08:00:00 +0000',
      'Content-Type: text/plain; charset=utf-8',
      '',
      `${body} (${sequence})`,
      '',
    ].join('\r\n'),
  );
}

describeApp('e-mail recipients: Reply-To, Cc, contact forms, one parsed address', (get) => {
  async function studio(settings: Record<string, unknown> = {}) {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({});
    const id = await addMailbox(get().app, tenant, bot.id, {
      kind: 'postmark',
      name: 'Studio Lena',
      address: 'info@studio-lena.example',
      aliases: ['kontakt@studio-lena.example'],
      settings: {
        inbound_username: 'postmark',
        smtp_host: '127.0.0.1',
        smtp_port: smtp.port,
        smtp_tls: false,
        username: 'smtp-user',
        ...settings,
      },
      secrets: { inbound_password: 'inbound-password-123', password: 'smtp-password' },
    });
    return { tenant, bot, mailbox: (await findMailboxById(get().db, id))! };
  }

  const send = () =>
    new OutboxWorker({ db: get().ctx.db, senders: [createEmailSender(get().ctx)] }).sendDue();

  async function sentFor(inboundId: string) {
    const [row] = await get().db.query<{ message_id: string }>(
      'SELECT message_id FROM email_outbound WHERE inbound_id = $1',
      [inboundId],
    );
    await send();
    const mail = smtp.received.find((m) => m.parsed.messageId === row!.message_id);
    expect(mail, 'reply sent').toBeDefined();
    return mail!;
  }

  for (const [file, customer] of CONTACT_FORMS) {
    it(`a ${file.replace('.eml', '')} notification is a customer mail, answered to the customer`, async () => {
      const { ctx } = get();
      const { mailbox } = await studio();
      const outcome = await receiveMail(ctx, mailbox, await parseRawMail(readFileSync(join(FORMS, file))));
      expect(outcome.status, JSON.stringify(outcome)).toBe('answered');
      const reply = await sentFor(outcome.inboundId);
      expect(reply.to).toEqual([customer]);
      expect(reply.parsed.to && 'value' in reply.parsed.to ? reply.parsed.to.value[0]!.address : '').toBe(
        customer,
      );
      // The conversation and the contact are the customer's, not the website's.
      const [conversation] = await ctx.db.query<{ sender_id: string }>(
        'SELECT c.sender_id FROM conversations c JOIN email_inbound i ON i.conversation_id = c.id WHERE i.id = $1',
        [outcome.inboundId],
      );
      // The conversation's sender is the customer: contacts are found or made from it.
      expect(conversation!.sender_id).toBe(customer);
      const contacts = await ctx.db.query<{ email: string | null; name: string | null; channel: string }>(
        'SELECT email, name, channel FROM contacts WHERE tenant_id = $1',
        [mailbox.tenant_id],
      );
      // The contact is the Reply-To person, named as there (Typeform and Webflow give no name).
      expect(contacts).toEqual([
        { email: customer, name: CONTACT_NAMES[customer] ?? null, channel: 'email' },
      ]);
    });
  }

  it("keeps the customer's Cc on the reply (without the mailbox's own addresses); not when reply to all is off", async () => {
    const { ctx } = get();
    const { mailbox } = await studio();
    const mail = raw([
      'From: Max Brandt <max@firma.example>',
      'Cc: Kollegin Jana <jana@firma.example>, info@studio-lena.example, Kontakt <kontakt@studio-lena.example>',
    ]);
    const outcome = await receiveMail(ctx, mailbox, await parseRawMail(mail));
    expect(outcome.status).toBe('answered');
    const reply = await sentFor(outcome.inboundId);
    expect(reply.to.sort()).toEqual(['jana@firma.example', 'max@firma.example']);
    expect(reply.parsed.cc && 'value' in reply.parsed.cc ? reply.parsed.cc.value : []).toEqual([
      { name: 'Kollegin Jana', address: 'jana@firma.example' },
    ]);

    const { mailbox: alone } = await studio({ reply_all: false });
    const second = await receiveMail(ctx, alone, await parseRawMail(mail));
    expect(second.status).toBe('answered');
    const only = await sentFor(second.inboundId);
    expect(only.to).toEqual(['max@firma.example']);
    expect(only.parsed.cc).toBeUndefined();
  });

  it('a Message-ID of our own shape under the mailbox domain is never answered, without any stored row', async () => {
    const { ctx } = get();
    const { mailbox } = await studio();
    // Made for a conversation that no longer exists (the mailbox was deleted and added again).
    const id = ownMessageId('studio-lena.example', mailbox.tenant_id, crypto.randomUUID(), 'some-old-secret');
    const mail = raw(['From: Kunde <kunde@kunde.example>'])
      .toString()
      .replace(/Message-ID: <[^>]+>/, `Message-ID: ${id}`);
    const outcome = await receiveMail(ctx, mailbox, await parseRawMail(Buffer.from(mail)));
    expect(outcome).toMatchObject({ status: 'skipped', reason: 'own_message_id' });
  });

  /** Injection forms over the IMAP path (a raw mail read by mailparser). */
  const IMAP_FORMS: [string, string[], string][] = [
    ['a list in From', ['From: a@example.test, other@evil.example'], 'address_count'],
    ['a group in From', ['From: Team: a@example.test, other@evil.example;'], 'address_count'],
    ['a ; list in From', ['From: a@example.test; other@evil.example'], 'address_count'],
    [
      'an encoded line break with Bcc in the name',
      ['From: =?utf-8?Q?Eve=0D=0ABcc=3A_x=40evil.example?= <eve@example.test>'],
      'address_injection',
    ],
    [
      'an encoded line break in Reply-To',
      [
        'From: a@example.test',
        `Reply-To: =?utf-8?B?${Buffer.from('a@example.test\r\nBcc: x@evil.example').toString('base64')}?= <a@example.test>`,
      ],
      'address_injection',
    ],
    ['a local part over 64 characters', [`From: ${'l'.repeat(65)}@example.test`], 'address_too_long'],
    [
      'an address over 254 characters',
      [`From: a@${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(63)}.${'g'.repeat(63)}.example`],
      'address_too_long',
    ],
  ];
  for (const [name, headers, reason] of IMAP_FORMS) {
    it(`IMAP: refuses ${name} (${reason}); nothing is sent`, async () => {
      const { ctx } = get();
      const { mailbox } = await studio();
      const outcome = await receiveMail(ctx, mailbox, await parseRawMail(raw(headers)));
      expect(outcome).toMatchObject({ status: 'skipped', reason });
      const rows = await ctx.db.query('SELECT 1 FROM email_outbound WHERE mailbox_id = $1', [mailbox.id]);
      expect(rows).toHaveLength(0);
    });
  }

  it('Postmark: sender lists, groups, ; lists, line breaks and overlong senders get 200 and no reply; the next mail is answered', async () => {
    const { ctx } = get();
    const { mailbox } = await studio();
    const url = `/v1/email/inbound/postmark/${mailbox.id}`;
    const headers = {
      authorization: `Basic ${Buffer.from('postmark:inbound-password-123').toString('base64')}`,
    };
    const payload = (n: number, from: Record<string, unknown>) => ({
      From: 'kunde@kunde.example',
      FromFull: { Email: 'kunde@kunde.example', Name: 'Kunde' },
      Subject: 'Frage',
      TextBody: `Haben Sie geöffnet? (${n})`,
      Headers: [{ Name: 'Message-ID', Value: `<pm-${mailbox.id}-${n}@kunde.example>` }],
      ...from,
    });
    const long = `${'x'.repeat(300)}@kunde.example`;
    const cases: [Record<string, unknown>, string][] = [
      [
        {
          FromFull: { Email: 'a@example.test, other@evil.example' },
          From: 'a@example.test, other@evil.example',
        },
        'address_count',
      ],
      [
        { FromFull: { Email: 'Team: a@example.test, other@evil.example;' }, From: 'a@example.test' },
        'address_count',
      ],
      [
        { FromFull: { Email: 'a@example.test; other@evil.example' }, From: 'a@example.test' },
        'address_count',
      ],
      [
        { FromFull: { Email: 'a@example.test\r\nBcc: x@evil.example' }, From: 'a@example.test' },
        'address_injection',
      ],
      [{ ReplyTo: 'a@example.test\r\nBcc: x@evil.example' }, 'address_injection'],
      [{ CcFull: [{ Email: 'c@example.test\nBcc: x@evil.example', Name: '' }] }, 'address_injection'],
      [{ FromFull: { Email: long, Name: 'Lang' }, From: long }, 'address_too_long'],
    ];
    let n = 0;
    for (const [fields, reason] of cases) {
      n += 1;
      const res = await get().app.inject({ method: 'POST', url, headers, payload: payload(n, fields) });
      expect(res.statusCode, JSON.stringify(fields)).toBe(200);
      expect(res.json()).toEqual({ status: 'skipped' });
      const [row] = await ctx.db.query<{ skip_reason: string }>(
        'SELECT skip_reason FROM email_inbound WHERE message_id = $1',
        [`<pm-${mailbox.id}-${n}@kunde.example>`],
      );
      expect(row!.skip_reason, JSON.stringify(fields)).toBe(reason);
    }
    const normal = await get().app.inject({ method: 'POST', url, headers, payload: payload(99, {}) });
    expect(normal.json()).toEqual({ status: 'answered' });
    await send();
    const ours = await ctx.db.query<{ message_id: string }>(
      'SELECT message_id FROM email_outbound WHERE mailbox_id = $1',
      [mailbox.id],
    );
    const sent = smtp.received.filter((m) => ours.some((o) => o.message_id === m.parsed.messageId));
    expect(sent.map((m) => m.to)).toEqual([['kunde@kunde.example']]);
    expect(smtp.received.some((m) => m.raw.includes('evil.example'))).toBe(false);
  });

  it('Graph: a list or a line break in the sender refuses; Reply-To and Cc go to createReply as structured recipients', async () => {
    const { ctx } = get();
    ctx.config.email.graphLoginUrl = graph.loginUrl;
    ctx.config.email.graphApiUrl = graph.apiUrl;
    clearGraphTokens();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const address = `studio-${tenant.id.slice(0, 8)}@contoso.example`;
    const id = await addMailbox(get().app, tenant, bot.id, {
      kind: 'graph',
      name: 'M365',
      address,
      settings: { tenant_id: 'contoso.onmicrosoft.com', client_id: '11111111-2222-3333-4444-555555555555' },
      secrets: { client_secret: 'graph-client-secret-value' },
    });
    const tag = tenant.id.slice(0, 8);
    graph.deliver({
      id: `list-${tag}`,
      internetMessageId: `<list-${tag}@kunde.example>`,
      subject: 'A',
      from: 'a@example.test, other@evil.example',
      text: 'Hallo?',
    });
    graph.deliver({
      id: `crlf-${tag}`,
      internetMessageId: `<crlf-${tag}@kunde.example>`,
      subject: 'B',
      from: 'a@example.test',
      fromName: 'Eve\r\nBcc: x@evil.example',
      text: 'Hallo?',
    });
    graph.deliver({
      id: `form-${tag}`,
      internetMessageId: `<form-${tag}@forms.example>`,
      subject: 'Kontaktformular',
      from: 'no-reply@forms.example',
      replyTo: ['kundin@kunde.example'],
      cc: ['kollege@kunde.example', address],
      text: 'Haben Sie am Montag offen?',
    });
    await graphRound(ctx, id, null);
    const rows = await ctx.db.query<{ provider_id: string; status: string; skip_reason: string | null }>(
      'SELECT provider_id, status, skip_reason FROM email_inbound WHERE mailbox_id = $1 ORDER BY provider_id',
      [id],
    );
    expect(rows.map((r) => [r.provider_id, r.status, r.skip_reason])).toEqual([
      [`crlf-${tag}`, 'skipped', 'address_injection'],
      [`form-${tag}`, 'answered', null],
      [`list-${tag}`, 'skipped', 'address_count'],
    ]);
    await send();
    const reply = graph.sent.find((s) => s.replyTo === `form-${tag}`);
    expect(reply?.toRecipients).toEqual([{ emailAddress: { address: 'kundin@kunde.example' } }]);
    expect(reply?.ccRecipients).toEqual([{ emailAddress: { address: 'kollege@kunde.example' } }]);
    expect(graph.sent.some((s) => s.replyTo === `list-${tag}` || s.replyTo === `crlf-${tag}`)).toBe(false);
  });

  it('a mail whose processing fails for good is settled as failed and the next one is answered', async () => {
    const { ctx } = get();
    const { mailbox } = await studio();
    // A sender that the database refuses whatever happens (a value too long for its column).
    const broken = { ...(mailbox as MailboxRow) };
    const poisoned = await parseRawMail(raw(['From: kunde@kunde.example']));
    const original = ctx.model;
    const failing = Object.create(original) as typeof original;
    failing.generate = async () => {
      throw Object.assign(new Error('value too long for type character varying(255)'), { code: '22001' });
    };
    ctx.model = failing;
    try {
      const outcome = await receiveMail(ctx, broken, poisoned);
      expect(outcome.status).toBe('failed');
    } finally {
      ctx.model = original;
    }
    const [row] = await ctx.db.query<{ status: string; skip_reason: string }>(
      'SELECT status, skip_reason FROM email_inbound WHERE message_id = $1',
      [poisoned.messageId],
    );
    expect(row).toMatchObject({ status: 'failed' });
    expect(row!.skip_reason).toContain('22001');
    const next = await receiveMail(ctx, mailbox, await parseRawMail(raw(['From: kunde@kunde.example'])));
    expect(next.status).toBe('answered');
  });
});
