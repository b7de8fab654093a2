import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { MailboxConnections, reconnectDelay } from '../../src/modules/mailboxes/connectors/sync.js';
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
function customerMail(body: string): { id: string; raw: string } {
  sequence += 1;
  const id = `<backoff-${Date.now()}-${sequence}@kunde.example>`;
  const raw = [
    `From: Kunde ${sequence} <kunde${sequence}@kunde.example>`,
    'To: bot@example.test',
    'Subject: Frage',
    `Message-ID: ${id}`,
    'Date: Thu, 26 Nov 2026 08:00:00 +0000',
    'Content-Type: text/plain; charset=utf-8',
    '',
    `${body} (${sequence})`,
    '',
  ].join('\r\n');
  return { id, raw };
}

it('reconnect backoff doubles from 1 s to 5 min', () => {
  expect([1, 2, 3, 4, 9, 10, 20].map(reconnectDelay)).toEqual([
    1000, 2000, 4000, 8000, 256_000, 300_000, 300_000,
  ]);
});

/**
 * An instance dies inside a model turn: its turn's idempotency reservation stays until it runs
 * out. The instance that takes the mailbox over skips that mail, answers the others, keeps its
 * one connection, and answers the held mail once the reservation expired. Compressed time: the
 * poll runs every second (60 s in production, so this is the harsher case), the reservation is
 * let run out by moving its expiry instead of waiting its 120 s.
 */
describeApp('e-mail: a crash inside a model turn does not start a reconnect storm', (get) => {
  it('the held mail is skipped, the others are answered, ≤ 3 logins in 20 s; the held one is answered after the reservation ran out', async () => {
    const { ctx } = get();
    ctx.config.email.pollIntervalMs = 1000;
    const { mailboxId } = await connectDovecotMailbox(get(), dovecot, { smtpPort: smtp.port });
    const original = ctx.model;
    let release: ((error: Error) => void) | undefined;
    let hung = false;
    const model = Object.create(original) as typeof original;
    model.generate = async (request) => {
      if (!hung && JSON.stringify(request).includes('HÄNGT')) {
        hung = true;
        await new Promise((_resolve, reject) => {
          release = reject;
        });
      }
      return original.generate(request);
    };
    ctx.model = model;
    const first = new MailboxConnections(ctx);
    const second = new MailboxConnections(ctx);
    const status = async () =>
      ctx.db.query<{ message_id: string; status: string; id: string }>(
        'SELECT id, message_id, status FROM email_inbound WHERE mailbox_id = $1',
        [mailboxId],
      );
    try {
      expect(await first.pass()).toBe(1);
      const held = customerMail('Diese Mail HÄNGT im Modell');
      await dovecot.append(held.raw);
      await vi.waitUntil(() => hung, { timeout: 30_000, interval: 50 });

      // The first instance is dead from here on (frozen in the turn); its lease runs out.
      await ctx.db.query(
        `UPDATE mailboxes SET lease_expires_at = now() - interval '1 second' WHERE id = $1`,
        [mailboxId],
      );
      const others = [customerMail('Erste andere Frage'), customerMail('Zweite andere Frage')];
      for (const mail of others) await dovecot.append(mail.raw);
      const loginsBefore = dovecot.logins();
      const started = Date.now();
      expect(await second.pass()).toBe(1);
      await vi.waitUntil(async () => (await status()).filter((m) => m.status === 'answered').length === 2, {
        timeout: 30_000,
        interval: 100,
      });
      // The rest of 20 s: the held mail is retried each round without reconnecting.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 20_000 - (Date.now() - started))));
      const logins = dovecot.logins() - loginsBefore;
      console.log(
        `IMAP logins in ${Math.round((Date.now() - started) / 1000)} s after the takeover: ${logins}`,
      );
      expect(logins).toBeLessThanOrEqual(3);
      const rows = await status();
      expect(rows.find((m) => m.message_id === held.id)!.status).toBe('received');
      const [box] = await ctx.db.query<{ last_error: string | null }>(
        'SELECT last_error FROM mailboxes WHERE id = $1',
        [mailboxId],
      );
      expect(box!.last_error).toBeNull();

      // The reservation runs out: the held mail is answered once.
      const heldRow = rows.find((m) => m.message_id === held.id)!;
      await ctx.db.query(
        `UPDATE chat_idempotency_keys SET lease_expires_at = now() - interval '1 second' WHERE idempotency_key = $1`,
        [`email:${heldRow.id}`],
      );
      await vi.waitUntil(
        async () => (await status()).find((m) => m.message_id === held.id)!.status === 'answered',
        { timeout: 30_000, interval: 100 },
      );
      const replies = await ctx.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM email_outbound WHERE mailbox_id = $1',
        [mailboxId],
      );
      expect(replies[0]!.n).toBe(3);
    } finally {
      ctx.model = original;
      const stopping = first.stop();
      release?.(new Error('process killed'));
      await stopping;
      await second.stop();
    }
  }, 120_000);

  it('rounds that fail (the model away) back off: a failed round counts whatever closed the connection', async () => {
    const { ctx } = get();
    ctx.config.email.pollIntervalMs = 1000;
    const { mailboxId } = await connectDovecotMailbox(get(), dovecot, { smtpPort: smtp.port });
    const original = ctx.model;
    const away = Object.create(original) as typeof original;
    away.generate = async () => {
      throw Object.assign(new Error('model unreachable'), { code: 'ECONNRESET' });
    };
    ctx.model = away;
    const connections = new MailboxConnections(ctx);
    try {
      await dovecot.append(customerMail('Ist jemand da?').raw);
      const before = dovecot.logins();
      const started = Date.now();
      expect(await connections.pass()).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 12_000));
      const logins = dovecot.logins() - before;
      console.log(
        `IMAP logins in ${Math.round((Date.now() - started) / 1000)} s of failing rounds: ${logins}`,
      );
      // 0, 1, 3, 7 s (doubling): four; a second per reconnect would be twelve.
      expect(logins).toBeLessThanOrEqual(5);
      const [box] = await ctx.db.query<{ last_error_code: string | null }>(
        'SELECT last_error_code FROM mailboxes WHERE id = $1',
        [mailboxId],
      );
      expect(box!.last_error_code).not.toBeNull();
    } finally {
      ctx.model = original;
      await connections.stop();
    }
  }, 60_000);
});
