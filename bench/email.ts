/**
 * E-mail channel benchmark against Debian's Dovecot (a temporary server on a free port) and a
 * local SMTP server that records what it receives, with the built-in offline model:
 *
 * 1. Reply latency: a customer mail is appended to the INBOX while the mailbox's connection
 *    idles (IMAP IDLE); measured from the end of the APPEND to the reply's arrival at the SMTP
 *    server (the outbox is polled every BENCH_EMAIL_OUTBOX_MS, 100 ms). Target ≤ 10 s.
 * 2. Idle connections: BENCH_EMAIL_CONNECTIONS mailboxes (500) held by this one instance, each
 *    with its IMAP connection in IDLE; prints the process's RSS before and after and per
 *    connection. Target: 500 within 300 MB RSS. The SMTP recorder and the APPEND client share
 *    this process (they are small); PGlite's memory is in the figure unless BENCH_DATABASE_URL
 *    names a PostgreSQL database (then it runs in a scratch database created and dropped here).
 * 3. Backlog after an outage: BENCH_EMAIL_BACKLOG mails (1,000) from senders writing four
 *    mails each in one thread arrive while no instance holds the mailbox; then one instance
 *    takes it and works through them. Prints the time, mails per second, and checks: every mail
 *    answered exactly once (one reply per mail, none twice) and, per conversation, the mails
 *    answered in their arrival order.
 *
 *   npm run bench:email
 *   BENCH_EMAIL_CONNECTIONS=20 BENCH_EMAIL_BACKLOG=40 BENCH_EMAIL_ROUNDS=3 npm run bench:email
 *
 * Needs an idle machine for meaningful figures.
 */
import { randomBytes } from 'node:crypto';
import { startDovecot } from '../test/email/dovecot.js';
import { startSmtpRecorder } from '../test/email/smtp-recorder.js';
import { benchContext, benchTenant, knowledgeDeps, withPgliteDir, withScratchPostgres } from './harness.js';

const int = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
};
const CONNECTIONS = int('BENCH_EMAIL_CONNECTIONS', 500);
const BACKLOG = int('BENCH_EMAIL_BACKLOG', 1000);
const ROUNDS = int('BENCH_EMAIL_ROUNDS', 10);
const OUTBOX_MS = int('BENCH_EMAIL_OUTBOX_MS', 100);
const MAILS_PER_SENDER = 4;

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

function rawMail(fields: { from: string; id: string; subject: string; body: string; references?: string[] }) {
  return [
    `From: <${fields.from}>`,
    'To: bot@example.test',
    `Subject: ${fields.subject}`,
    `Message-ID: ${fields.id}`,
    ...(fields.references?.length
      ? [`In-Reply-To: ${fields.references.at(-1)}`, `References: ${fields.references.join(' ')}`]
      : []),
    `Date: ${new Date().toUTCString()}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    fields.body,
    '',
  ].join('\r\n');
}

async function main(): Promise<void> {
  const server = process.env.BENCH_DATABASE_URL;
  await withPgliteDir('parley-bench-email', (dataDir) =>
    server ? withScratchPostgres(server, 'bench_email', (url) => run(dataDir, url)) : run(dataDir, undefined),
  );
}

async function run(dataDir: string, databaseUrl: string | undefined): Promise<void> {
  const dovecot = await startDovecot({ connections: CONNECTIONS + 20 });
  const smtp = await startSmtpRecorder();
  const { createMailbox } = await import('../src/modules/mailboxes/service.js');
  const { secretStoreFor } = await import('../src/modules/mailboxes/secret-store.js');
  const { MailboxConnections } = await import('../src/modules/mailboxes/connectors/sync.js');
  const { createEmailSender } = await import('../src/modules/mailboxes/connectors/sender.js');
  const { OutboxWorker } = await import('../src/modules/outbox/worker.js');

  const ctx = await benchContext({
    PARLEY_DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl ?? '',
    REDIS_URL: '',
    EMAIL_SYNC: 'false',
    EMAIL_POLL_INTERVAL_MS: '60000',
    // The channel is measured, not the bot's knowledge: the offline model's "no answer" is a reply too.
    HANDOVER_ON_NO_ANSWER: 'false',
    // A key of this run only (PostgreSQL needs one set; on PGlite the data directory would hold one).
    PARLEY_SECRET_KEY: process.env.PARLEY_SECRET_KEY ?? randomBytes(32).toString('base64'),
  });
  const config = ctx.config;
  const { tenant, bot } = await benchTenant(ctx, {
    name: 'Bench bot',
    system_prompt: 'Du bist der Assistent eines Yogastudios.',
  });
  // Knowledge the customers' questions find, so the offline model answers instead of handing over.
  const { createEntry } = await import('../src/modules/knowledge/service.js');
  const knowledge = knowledgeDeps(ctx);
  for (const entry of [
    {
      title: 'Nächster Termin',
      content: 'Der nächste Termin für einen Kurs ist jeden Samstag um 10 Uhr. Termine bucht man per Mail.',
    },
    {
      title: 'Fragen und Öffnungszeiten',
      content: 'Fragen beantworten wir montags bis freitags von 9 bis 18 Uhr; geöffnet ist auch samstags.',
    },
  ])
    await createEntry(knowledge, tenant.id, { botId: bot.id }, entry, null);
  const deps = { db: ctx.db, config, secrets: secretStoreFor(config) };
  const mailboxBody = (name: string) => ({
    kind: 'imap' as const,
    name,
    address: 'bot@example.test',
    settings: {
      imap_host: '127.0.0.1',
      imap_port: dovecot.port,
      imap_tls: false,
      smtp_host: '127.0.0.1',
      smtp_port: smtp.port,
      smtp_tls: false,
      username: dovecot.user,
    },
    secrets: { password: dovecot.password },
  });
  const worker = new OutboxWorker({ db: ctx.db, senders: [createEmailSender(ctx)] });
  let sending = true;
  const outboxLoop = (async () => {
    while (sending) {
      await worker.sendDue().catch(() => undefined);
      await sleep(OUTBOX_MS);
    }
  })();
  const cleanup: (() => Promise<void>)[] = [];
  try {
    // 1. Reply latency with IDLE.
    const main = await createMailbox(deps, tenant.id, bot.id, mailboxBody('Latency'));
    const connections = new MailboxConnections(ctx);
    cleanup.push(() => connections.stop());
    await connections.pass();
    await waitFor(
      'the first sync',
      async () =>
        (await ctx.db.query('SELECT 1 FROM mailboxes WHERE id = $1 AND last_sync_at IS NOT NULL', [main.id]))
          .length > 0,
      30_000,
    );
    const latencies: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const before = smtp.received.length;
      const id = `<latency-${Date.now()}-${round}@kunde.example>`;
      await dovecot.append(
        rawMail({
          from: `latenz${round}@kunde.example`,
          id,
          subject: 'Frage',
          body: `Wann ist der nächste Termin für einen Kurs? (Frage ${round})`,
        }),
      );
      const appended = performance.now();
      await waitFor('the reply', async () => smtp.received.length > before, 60_000);
      latencies.push(performance.now() - appended);
    }
    latencies.sort((a, b) => a - b);
    const p = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
    console.log(
      `reply latency (arrival → reply sent, IDLE, offline model, ${ROUNDS} mails): p50 ${p(0.5).toFixed(0)} ms, max ${latencies.at(-1)!.toFixed(0)} ms (target ≤ 10000 ms)`,
    );
    await connections.stop();
    cleanup.pop();
    await ctx.db.query('UPDATE mailboxes SET is_active = false WHERE id = $1', [main.id]);

    // 2. Idle connections.
    const rssBefore = process.memoryUsage().rss;
    const ids: string[] = [];
    for (let i = 0; i < CONNECTIONS; i += 1)
      ids.push((await createMailbox(deps, tenant.id, bot.id, mailboxBody(`Idle ${i}`))).id);
    const idle = new MailboxConnections(ctx);
    cleanup.push(() => idle.stop());
    const started = performance.now();
    const held = await idle.pass();
    await waitFor(
      `${CONNECTIONS} connections to sync once`,
      async () =>
        (
          await ctx.db.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM mailboxes WHERE id = ANY($1::uuid[]) AND last_sync_at IS NOT NULL',
            [ids],
          )
        )[0]!.n === CONNECTIONS,
      600_000,
    );
    const connectedMs = performance.now() - started;
    await sleep(2000);
    global.gc?.();
    const rssAfter = process.memoryUsage().rss;
    console.log(
      `idle connections: ${held} held by one instance, all synced in ${(connectedMs / 1000).toFixed(1)} s; RSS ${mb(rssBefore)} before, ${mb(rssAfter)} with them (${mb(rssAfter - rssBefore)} more, ${((rssAfter - rssBefore) / 1024 / Math.max(1, held)).toFixed(0)} KB per connection); target 500 within 300 MB RSS`,
    );
    await idle.stop();
    cleanup.pop();
    await ctx.db.query('UPDATE mailboxes SET is_active = false WHERE id = ANY($1::uuid[])', [ids]);

    // 3. Backlog after an outage: the mails arrive while nobody holds the mailbox.
    await dovecot.clear();
    const backlogBox = await createMailbox(deps, tenant.id, bot.id, mailboxBody('Backlog'));
    const senders = Math.ceil(BACKLOG / MAILS_PER_SENDER);
    const order = new Map<string, number>();
    const chains: string[][] = Array.from({ length: senders }, () => []);
    for (let n = 0; n < BACKLOG; n += 1) {
      const sender = n % senders;
      const id = `<backlog-${n}-${Date.now()}@kunde.example>`;
      order.set(id, n);
      await dovecot.append(
        rawMail({
          from: `kunde${sender}@kunde.example`,
          id,
          subject: `Anfrage ${sender}`,
          body: `Nachricht ${n} von Kunde ${sender}: wann ist der nächste Termin für einen Kurs?`,
          references: [...chains[sender]!],
        }),
      );
      chains[sender]!.push(id);
    }
    const taking = new MailboxConnections(ctx);
    cleanup.push(() => taking.stop());
    const backlogStart = performance.now();
    await taking.pass();
    await waitFor(
      'the backlog to be settled',
      async () =>
        (
          await ctx.db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM email_inbound WHERE mailbox_id = $1 AND status <> 'received'`,
            [backlogBox.id],
          )
        )[0]!.n >= BACKLOG,
      3_600_000,
    );
    const backlogMs = performance.now() - backlogStart;
    await taking.stop();
    cleanup.pop();
    const inbound = await ctx.db.query<{
      id: string;
      message_id: string;
      status: string;
      skip_reason: string | null;
      conversation_id: string | null;
      processed_at: Date;
    }>(
      `SELECT id, message_id, status, skip_reason, conversation_id, processed_at FROM email_inbound WHERE mailbox_id = $1
       ORDER BY processed_at, id`,
      [backlogBox.id],
    );
    const replies = await ctx.db.query<{ inbound_id: string; n: number }>(
      'SELECT inbound_id, count(*)::int AS n FROM email_outbound WHERE mailbox_id = $1 GROUP BY inbound_id',
      [backlogBox.id],
    );
    const twice = replies.filter((r) => r.n > 1).length;
    const answered = inbound.filter((m) => m.status === 'answered').length;
    let outOfOrder = 0;
    const lastSeen = new Map<string, number>();
    for (const mail of inbound) {
      if (!mail.conversation_id) continue;
      const position = order.get(mail.message_id) ?? -1;
      if ((lastSeen.get(mail.conversation_id) ?? -1) > position) outOfOrder += 1;
      lastSeen.set(mail.conversation_id, position);
    }
    const conversations = new Set(inbound.map((m) => m.conversation_id).filter(Boolean)).size;
    console.log(
      `backlog: ${inbound.length} mails (${senders} senders, ${conversations} conversations) settled in ${(backlogMs / 1000).toFixed(1)} s (${((inbound.length / backlogMs) * 1000).toFixed(1)} mails/s); ${answered} answered, ${inbound.length - answered} not (${
        Object.entries(
          inbound
            .filter((m) => m.status !== 'answered')
            .reduce<Record<string, number>>((acc, m) => {
              const key = m.skip_reason ?? m.status;
              acc[key] = (acc[key] ?? 0) + 1;
              return acc;
            }, {}),
        )
          .map(([reason, n]) => `${n}× ${reason}`)
          .join(', ') || '—'
      }); replies per mail > 1: ${twice}; out of arrival order within a conversation: ${outOfOrder}`,
    );
    await waitFor(
      'the replies to leave',
      async () => smtp.received.length >= ROUNDS + answered,
      600_000,
    ).catch(() => undefined);
    console.log(`replies sent by SMTP in all: ${smtp.received.length}`);
  } finally {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
    sending = false;
    await outboxLoop;
    await ctx.close();
    await smtp.close();
    await dovecot.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
