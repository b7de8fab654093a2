import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { AppContext } from '../../src/shared/context.js';
import { createEmailSender } from '../../src/modules/mailboxes/connectors/sender.js';
import { MailboxConnections } from '../../src/modules/mailboxes/connectors/sync.js';
import { OutboxWorker } from '../../src/modules/outbox/worker.js';
import { describeApp } from '../helpers/app.js';
import { startDovecot, type Dovecot } from './dovecot.js';
import { connectDovecotMailbox } from './mailbox-setup.js';
import { startSmtpRecorder, type SmtpRecorder } from './smtp-recorder.js';

let dovecot: Dovecot;
let smtp: SmtpRecorder;

beforeAll(async () => {
  dovecot = await startDovecot();
  smtp = await startSmtpRecorder();
}, 30_000);

afterAll(async () => {
  await smtp?.close();
  await dovecot?.stop();
});

let sequence = 0;
function customerMail(fields: { from?: string; subject?: string; body?: string; headers?: string } = {}) {
  sequence += 1;
  const id = `<customer-${Date.now()}-${sequence}@kunde.example>`;
  const raw = [
    `From: Kunde <${fields.from ?? 'kunde@kunde.example'}>`,
    'To: bot@example.test',
    `Subject: ${fields.subject ?? 'Frage zu den Öffnungszeiten'}`,
    `Message-ID: ${id}`,
    'Date: Thu, 26 Nov 2026 08:00:00 +0000',
    'Content-Type: text/plain; charset=utf-8',
    ...(fields.headers ? [fields.headers] : []),
    '',
    fields.body ?? `Wann haben Sie morgen geöffnet? (${sequence})`,
    '',
  ].join('\r\n');
  return { id, raw };
}

describeApp('e-mail over IMAP (Dovecot) and SMTP (recording server)', (get) => {
  let connections: MailboxConnections[] = [];
  const worker = (ctx: AppContext, now?: () => Date) =>
    new OutboxWorker({ db: ctx.db, senders: [createEmailSender(ctx)], now });

  const setUp = () =>
    connectDovecotMailbox(get(), dovecot, {
      smtpPort: smtp.port,
      systemPrompt: 'Du bist der Assistent des Studios.',
    });

  async function inbound(mailboxId: string) {
    return get().db.query<{
      message_id: string;
      status: string;
      skip_reason: string | null;
      conversation_id: string | null;
    }>(
      'SELECT message_id, status, skip_reason, conversation_id FROM email_inbound WHERE mailbox_id = $1 ORDER BY received_at',
      [mailboxId],
    );
  }

  async function stopAll() {
    for (const c of connections) await c.stop();
    connections = [];
  }

  it('answers a customer once, in the thread, marked as an automatic reply; a second instance sends nothing more', async () => {
    const { ctx } = get();
    const { mailboxId } = await setUp();
    const first = new MailboxConnections(ctx);
    connections.push(first);
    expect(await first.pass()).toBe(1);
    const mail = customerMail();
    await dovecot.append(mail.raw);
    await vi.waitUntil(async () => (await inbound(mailboxId)).some((m) => m.status === 'answered'), {
      timeout: 30_000,
      interval: 100,
    });
    const before = smtp.received.length;
    await worker(ctx).sendDue();
    expect(smtp.received.length).toBe(before + 1);
    const reply = smtp.received.at(-1)!;
    expect(reply.to).toEqual(['kunde@kunde.example']);
    expect(reply.parsed.inReplyTo).toBe(mail.id);
    expect(reply.parsed.references).toEqual(mail.id);
    expect(reply.parsed.subject).toBe('Re: Frage zu den Öffnungszeiten');
    expect(reply.parsed.headers.get('auto-submitted')).toBe('auto-replied');
    expect(reply.parsed.headers.get('x-auto-response-suppress')).toBe('All');
    expect(reply.parsed.messageId).toMatch(/@example\.test>$/);
    expect(reply.parsed.text?.trim().length).toBeGreaterThan(0);
    // Read once settled.
    const flags = await dovecot.flags();
    expect([...flags.values()].at(-1)).toContain('\\Seen');

    // A second instance: the lease is held, so it connects to nothing.
    const second = new MailboxConnections(ctx);
    connections.push(second);
    expect(await second.pass()).toBe(0);
    // The first stops (restart): the second takes over, finds nothing new, sends nothing.
    await first.stop();
    expect(await second.pass()).toBe(1);
    await vi.waitUntil(
      async () => {
        const [row] = await ctx.db.query<{ last_sync_at: Date | null; lease_holder: string }>(
          'SELECT last_sync_at, lease_holder FROM mailboxes WHERE id = $1',
          [mailboxId],
        );
        return row!.lease_holder === second.holder && row!.last_sync_at !== null;
      },
      { timeout: 10_000, interval: 100 },
    );
    expect((await worker(ctx).sendDue()).claimed).toBe(0);
    expect(await inbound(mailboxId)).toHaveLength(1);
    expect(smtp.received.length).toBe(before + 1);

    // The customer answers in the thread: the same conversation.
    const followUp = customerMail({ subject: 'Re: Frage zu den Öffnungszeiten', body: 'Und am Sonntag?' });
    await dovecot.append(
      followUp.raw.replace(
        'Content-Type:',
        `In-Reply-To: ${reply.parsed.messageId}\r\nReferences: ${mail.id} ${reply.parsed.messageId}\r\nContent-Type:`,
      ),
    );
    await vi.waitUntil(
      async () => (await inbound(mailboxId)).filter((m) => m.status === 'answered').length === 2,
      {
        timeout: 30_000,
        interval: 100,
      },
    );
    const rows = await inbound(mailboxId);
    expect(rows[1]!.conversation_id).toBe(rows[0]!.conversation_id);
    await stopAll();
  }, 90_000);

  it('never answers an automatic reply and stores it with its reason', async () => {
    const { ctx } = get();
    const { mailboxId } = await setUp();
    const c = new MailboxConnections(ctx);
    connections.push(c);
    await c.pass();
    await dovecot.append(
      customerMail({
        subject: 'Abwesenheitsnotiz',
        body: 'Ich bin bis Montag nicht im Büro.',
        headers: 'Auto-Submitted: auto-replied',
      }).raw,
    );
    await dovecot.append(customerMail({ from: 'MAILER-DAEMON@kunde.example', body: 'Delivery failed' }).raw);
    await vi.waitUntil(async () => (await inbound(mailboxId)).length === 2, {
      timeout: 30_000,
      interval: 100,
    });
    await vi.waitUntil(async () => (await inbound(mailboxId)).every((m) => m.status !== 'received'), {
      timeout: 10_000,
      interval: 100,
    });
    const rows = await inbound(mailboxId);
    expect(rows.map((r) => [r.status, r.skip_reason])).toEqual([
      ['skipped', 'auto_submitted'],
      ['skipped', 'mailer_daemon'],
    ]);
    const queued = await ctx.db.query(
      `SELECT 1 FROM outbox_messages WHERE kind = 'email.reply' AND tenant_id = (SELECT tenant_id FROM mailboxes WHERE id = $1)`,
      [mailboxId],
    );
    expect(queued).toHaveLength(0);
    await stopAll();
  }, 60_000);

  it('sends one reply when SMTP answers 451 first and 250 later', async () => {
    const { ctx } = get();
    const { mailboxId } = await setUp();
    const c = new MailboxConnections(ctx);
    connections.push(c);
    await c.pass();
    await dovecot.append(customerMail().raw);
    await vi.waitUntil(async () => (await inbound(mailboxId)).some((m) => m.status === 'answered'), {
      timeout: 30_000,
      interval: 100,
    });
    await stopAll();
    const before = smtp.received.length;
    const attemptsBefore = smtp.attempts;
    smtp.refuseNext(1, 451);
    expect((await worker(ctx).sendDue()).retried).toBe(1);
    expect(smtp.received.length).toBe(before);
    // The retry is due later: a worker whose clock is past the backoff sends it.
    const later = () => new Date(Date.now() + 3600_000);
    expect((await worker(ctx, later).sendDue()).sent).toBe(1);
    expect((await worker(ctx, later).sendDue()).claimed).toBe(0);
    expect(smtp.received.length).toBe(before + 1);
    expect(smtp.attempts).toBe(attemptsBefore + 2);
  }, 60_000);

  it('loses nothing and answers nothing twice when the IMAP connection is killed mid-batch', async () => {
    const { ctx } = get();
    const { mailboxId } = await setUp();
    const original = ctx.model;
    let calls = 0;
    const killing = Object.create(original) as typeof original;
    killing.generate = async (request) => {
      calls += 1;
      if (calls === 2) {
        dovecot.kickConnections();
        await new Promise((r) => setTimeout(r, 300));
      }
      return original.generate(request);
    };
    ctx.model = killing;
    try {
      for (let i = 0; i < 5; i += 1)
        await dovecot.append(customerMail({ from: `kunde${i}@kunde.example` }).raw);
      const c = new MailboxConnections(ctx);
      connections.push(c);
      await c.pass();
      await vi.waitUntil(
        async () => (await inbound(mailboxId)).filter((m) => m.status === 'answered').length === 5,
        {
          timeout: 60_000,
          interval: 200,
        },
      );
    } finally {
      ctx.model = original;
      await stopAll();
    }
    const rows = await inbound(mailboxId);
    expect(rows).toHaveLength(5);
    const queued = await ctx.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM email_outbound WHERE mailbox_id = $1`,
      [mailboxId],
    );
    expect(queued[0]!.n).toBe(5);
  }, 90_000);
});
