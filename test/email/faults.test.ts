import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { AppContext } from '../../src/shared/context.js';
import { findMailboxById } from '../../src/modules/mailboxes/repository.js';
import { receiveMail, type InboundMail } from '../../src/modules/mailboxes/connectors/inbound.js';
import { createEmailSender } from '../../src/modules/mailboxes/connectors/sender.js';
import { MailboxConnections } from '../../src/modules/mailboxes/connectors/sync.js';
import { OutboxWorker } from '../../src/modules/outbox/worker.js';
import { describeApp, startApp, stopApp } from '../helpers/app.js';
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
function customerMail(): { mail: InboundMail; raw: string } {
  sequence += 1;
  const messageId = `<fault-${Date.now()}-${sequence}@kunde.example>`;
  const text = `Haben Sie am Samstag geöffnet? (${sequence})`;
  const raw = [
    'From: Kunde <kunde@kunde.example>',
    'To: bot@example.test',
    'Subject: Öffnungszeiten',
    `Message-ID: ${messageId}`,
    'Date: Thu, 26 Nov 2026 08:00:00 +0000',
    'Content-Type: text/plain; charset=utf-8',
    '',
    text,
    '',
  ].join('\r\n');
  return {
    raw,
    mail: {
      messageId,
      from: 'kunde@kunde.example',
      subject: 'Öffnungszeiten',
      inReplyTo: null,
      references: [],
      text,
      headers: { 'message-id': [messageId] },
      contentType: 'text/plain',
    },
  };
}

/** What a killed instance leaves behind: its runners gone, its leases still in the table. */
async function kill(connections: MailboxConnections): Promise<void> {
  const runners = (connections as unknown as { runners: Map<string, { stop(): Promise<void> }> }).runners;
  for (const runner of runners.values()) await runner.stop();
  runners.clear();
}

describeApp('e-mail faults: an instance killed between reply and send, a lease that runs out', (get) => {
  const sender = (ctx: AppContext) => new OutboxWorker({ db: ctx.db, senders: [createEmailSender(ctx)] });

  async function setUp() {
    const { mailboxId } = await connectDovecotMailbox(get(), dovecot, { smtpPort: smtp.port });
    return (await findMailboxById(get().ctx.db, mailboxId))!;
  }

  it('the exchange and its outbox row commit together: a restarted instance sends the reply exactly once', async () => {
    const { ctx } = get();
    const mailbox = await setUp();
    const { mail } = customerMail();
    // The instance dies while the model answers: nothing of the exchange is stored, nothing queued.
    const original = ctx.model;
    const dying = Object.create(original) as typeof original;
    dying.generate = async (request) => {
      await original.generate(request);
      throw new Error('process killed');
    };
    ctx.model = dying;
    await expect(receiveMail(ctx, mailbox, mail)).rejects.toThrow('process killed');
    ctx.model = original;
    const queued = () =>
      ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM email_outbound WHERE mailbox_id = $1`, [
        mailbox.id,
      ]);
    expect((await queued())[0]!.n).toBe(0);

    // The mail comes again (the cursor had not moved): answered now; the instance dies before sending.
    expect((await receiveMail(ctx, mailbox, mail)).status).toBe('answered');
    expect((await queued())[0]!.n).toBe(1);
    const before = smtp.received.length;

    // A restarted instance on the same database: the mail is a duplicate, the reply goes out once.
    const restarted = await startApp(get().database);
    try {
      expect((await receiveMail(restarted.ctx, mailbox, mail)).status).toBe('duplicate');
      expect((await sender(restarted.ctx).sendDue()).sent).toBe(1);
      expect((await sender(restarted.ctx).sendDue()).claimed).toBe(0);
      expect((await sender(ctx).sendDue()).claimed).toBe(0);
    } finally {
      await stopApp(restarted);
    }
    expect(smtp.received.length).toBe(before + 1);
    expect(smtp.received.at(-1)!.parsed.inReplyTo).toBe(mail.messageId);
    expect((await queued())[0]!.n).toBe(1);
  }, 60_000);

  it('a lease that runs out: another instance takes the mailbox over and answers what arrived since', async () => {
    const { ctx } = get();
    const mailbox = await setUp();
    const first = new MailboxConnections(ctx);
    const second = new MailboxConnections(ctx);
    try {
      expect(await first.pass()).toBe(1);
      const one = customerMail();
      await dovecot.append(one.raw);
      const answered = async () =>
        (
          await ctx.db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM email_inbound WHERE mailbox_id = $1 AND status = 'answered'`,
            [mailbox.id],
          )
        )[0]!.n;
      await vi.waitUntil(async () => (await answered()) === 1, { timeout: 30_000, interval: 100 });

      // The first instance dies: its lease stays in the table until it runs out.
      await kill(first);
      expect(await second.pass()).toBe(0);
      const two = customerMail();
      await dovecot.append(two.raw);
      await ctx.db.query(
        `UPDATE mailboxes SET lease_expires_at = now() - interval '1 second' WHERE id = $1`,
        [mailbox.id],
      );
      expect(await second.pass()).toBe(1);
      const [row] = await ctx.db.query<{ lease_holder: string }>(
        'SELECT lease_holder FROM mailboxes WHERE id = $1',
        [mailbox.id],
      );
      expect(row!.lease_holder).toBe(second.holder);
      await vi.waitUntil(async () => (await answered()) === 2, { timeout: 30_000, interval: 100 });
      // The old holder, were it alive again, gets nothing: the lease is the second's.
      expect(await first.pass()).toBe(0);
      const rows = await ctx.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM email_outbound WHERE mailbox_id = $1',
        [mailbox.id],
      );
      expect(rows[0]!.n).toBe(2);
    } finally {
      await first.stop();
      await second.stop();
    }
  }, 90_000);
});
