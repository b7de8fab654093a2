/**
 * Messaging benchmark (WhatsApp Cloud API webhooks) on PostgreSQL, with the built-in offline
 * model, the default quiet window (1.5 s) and a local stand-in of Meta's Graph API that records
 * every message Parley sends:
 *
 * 0. Warm-up: BENCH_MESSAGING_WARMUP (1) seconds at the same rate, not measured (the database
 *    pool's connections, prepared statements and compiled code of a service that has run a while).
 * 1. Webhook acknowledgement at BENCH_MESSAGING_RATE (200) signed webhooks per second for
 *    BENCH_MESSAGING_SECONDS (5): p50/p99 of the time to the 200 answer (target p99 ≤ 50 ms).
 *    Each message comes from its own customer, so each is answered on its own.
 * 2. Arrival → outbound request at the provider, for the same messages: p50 (target ≤ 1.5 s
 *    beyond the quiet window is not possible: the window itself is 1.5 s, so the figure is
 *    printed with and without it).
 * 3. Retry storm: BENCH_MESSAGING_STORM (1,000) webhooks, each delivered 3 times at once →
 *    exactly one reply per webhook.
 *
 *   npm run bench:messaging
 *   BENCH_MESSAGING_SECONDS=2 BENCH_MESSAGING_STORM=200 npm run bench:messaging
 *
 * BENCH_DATABASE_URL names the PostgreSQL server (default the local test server); the run uses
 * a scratch database created and dropped here. Needs an idle machine for meaningful figures.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { startFakeProviders } from '../test/messaging/fake-providers.js';
import { fileURLToPath } from 'node:url';
import {
  DEFAULT_POSTGRES_URL,
  announceReady,
  argument,
  benchContext,
  benchTenant,
  cpuMs,
  loadAverage,
  percentile,
  portOf,
  postgresBackends,
  startService,
  withScratchPostgres,
} from './harness.js';

const int = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
};
const RATE = int('BENCH_MESSAGING_RATE', 200);
const SECONDS = int('BENCH_MESSAGING_SECONDS', 5);
const STORM = int('BENCH_MESSAGING_STORM', 1000);
const WARMUP_SECONDS = int('BENCH_MESSAGING_WARMUP', 1);
const APP_SECRET = 'bench-app-secret';
const TOKEN = 'bench-access-token';
const PHONE_ID = '1000000001';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function waitFor(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) {
      console.log(`  (stopped waiting for ${what} after ${timeoutMs / 1000} s)`);
      return;
    }
    await sleep(50);
  }
}

function payload(from: string, id: string, text: string): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '1',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { phone_number_id: PHONE_ID },
              messages: [
                {
                  from,
                  id,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  type: 'text',
                  text: { body: text },
                },
              ],
            },
          },
        ],
      },
    ],
  });
}

const SELF = fileURLToPath(import.meta.url);

/** What the service process tells the generator once it listens. */
interface Ready {
  url: string;
}

async function main(): Promise<void> {
  if (process.argv.includes('--serve')) return serve();
  const server = process.env.BENCH_DATABASE_URL ?? DEFAULT_POSTGRES_URL;
  await withScratchPostgres(server, 'bench_messaging', run);
}

/**
 * The service, in its own process (as in production: the generator, the fake provider and the
 * service do not share one event loop): migrates, seeds one tenant with a WhatsApp connection
 * and listens. GRAPH_BASE names the fake provider started by the generator.
 */
async function serve(): Promise<void> {
  const ctx = await benchContext({
    DATABASE_URL: argument('database')!,
    WHATSAPP_GRAPH_BASE_URL: argument('graph')!,
    // The outbox worker and the sweep that answers turns given back after a failure.
    WEBHOOK_WORKER: 'true',
    DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE ?? '20',
    DATABASE_QUEUE_LIMIT: process.env.DATABASE_QUEUE_LIMIT ?? '2000',
    PARLEY_SECRET_KEY: 'bench:' + Buffer.alloc(32, 9).toString('base64'),
  });
  const { buildApp } = await import('../src/app.js');
  const { createConnection } = await import('../src/modules/messaging/service.js');
  const { channelSecretsFor } = await import('../src/modules/messaging/secret-store.js');
  const app = await buildApp(ctx, { logStream: { write: () => undefined } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { tenant, bot } = await benchTenant(ctx);
  const conn = await createConnection(
    { db: ctx.db, config: ctx.config, secrets: channelSecretsFor(ctx.config) },
    tenant.id,
    bot.id,
    {
      kind: 'whatsapp_cloud',
      name: 'Bench',
      phone_number_id: PHONE_ID,
      business_account_id: '1',
      access_token: TOKEN,
      app_secret: APP_SECRET,
      verify_token: 'verify',
      ...(process.env.BENCH_MESSAGING_QUIET_MS
        ? { quiet_window_ms: Number(process.env.BENCH_MESSAGING_QUIET_MS) }
        : {}),
    },
  );
  // A normal exit, so `node --cpu-prof` can write its profile.
  process.once('SIGTERM', () => {
    void app
      .close()
      .then(() => ctx.close())
      .finally(() => process.exit(0));
  });
  announceReady({ url: `http://127.0.0.1:${portOf(app)}/v1/channels/${conn.id}/webhook` } satisfies Ready);
}

async function run(databaseUrl: string): Promise<void> {
  const fake = await startFakeProviders({ meta: TOKEN, twilio: { sid: '', token: '' } });
  const { child, ready } = await startService<Ready>(SELF, {
    args: [`--database=${databaseUrl}`, `--graph=${fake.graphBase}`],
    name: 'messaging service',
  });
  const url = ready.url;
  const refused: number[] = [];
  const post = async (raw: string): Promise<number> => {
    const started = performance.now();
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': `sha256=${createHmac('sha256', APP_SECRET).update(raw).digest('hex')}`,
      },
      body: raw,
    });
    await res.arrayBuffer();
    if (res.status !== 200) refused.push(res.status);
    return performance.now() - started;
  };
  const repliesByCustomer = () => {
    const map = new Map<string, number[]>();
    for (const r of fake.messages('meta')) {
      const to = String(r.body.to);
      map.set(to, [...(map.get(to) ?? []), r.at]);
    }
    return map;
  };

  const loadBefore = loadAverage();
  // CPU of the service and of PostgreSQL's backends of the scratch database, per message.
  const cpuOf = async () => {
    const backends = await postgresBackends(databaseUrl);
    return new Map([
      [child.pid!, cpuMs([child.pid!])],
      ...backends.map((pid) => [pid, cpuMs([pid])] as const),
    ]);
  };
  /** Sends `count` webhooks at RATE per second, each from its own customer; their acks and send times. */
  const atRate = async (prefix: string, count: number) => {
    const acks: number[] = [];
    const sentAt = new Map<string, number>();
    const pending: Promise<void>[] = [];
    const start = performance.now();
    for (let i = 0; i < count; i++) {
      const due = start + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const from = `${prefix}${String(10_000_000 + i)}`;
      const raw = payload(from, `wamid.${prefix}${i}`, 'Wann habt ihr geöffnet?');
      // Arrival is when the webhook is sent, not when it was acknowledged.
      sentAt.set(from, Date.now());
      pending.push(post(raw).then((t) => void acks.push(t)));
    }
    await Promise.all(pending);
    return { acks, sentAt };
  };
  // 0: warm-up, not measured: the pool's connections, prepared statements and compiled code.
  const warm = RATE * WARMUP_SECONDS;
  await atRate('4914', warm);
  await waitFor('replies of the warm-up', () => repliesByCustomer().size >= warm, 120_000);
  fake.reset();
  refused.length = 0;

  const cpuBefore = await cpuOf();
  // 1 + 2: steady rate.
  const total = RATE * SECONDS;
  const { acks, sentAt } = await atRate('4915', total);
  await waitFor('replies of the steady run', () => repliesByCustomer().size >= total, 120_000);
  const replies = repliesByCustomer();
  const cpuAfter = await cpuOf();
  const spent = (pids: number[]) =>
    pids.reduce((sum, pid) => sum + cpuAfter.get(pid)! - (cpuBefore.get(pid) ?? 0), 0);
  const service = spent([child.pid!]);
  const postgres = spent([...cpuAfter.keys()].filter((pid) => pid !== child.pid));
  const arrival = [...sentAt]
    .filter(([from]) => replies.has(from))
    .map(([from, at]) => replies.get(from)![0]! - at);
  console.log(`  replies: ${replies.size} of ${total}`);
  console.log(`Load average before: ${loadBefore.join(' ')} (the figures mean little on a busy machine)`);
  console.log(`Steady: ${total} webhooks at ${RATE}/s on PostgreSQL`);
  console.log(`  not 200: ${refused.length} (${[...new Set(refused)].join(', ') || 'none'})`);
  console.log(
    `  ack p50 ${ms(percentile(acks, 50))}, p99 ${ms(percentile(acks, 99))}, max ${ms(Math.max(...acks))}`,
  );
  console.log(
    `  CPU per message (webhook, turn and send): service ${ms(service / total)}, PostgreSQL ${ms(postgres / total)}`,
  );
  console.log(
    `  arrival → outbound request p50 ${ms(percentile(arrival, 50))} (quiet window 1,500 ms included; ${ms(percentile(arrival, 50) - 1500)} beyond it), p99 ${ms(percentile(arrival, 99))}`,
  );

  // 3: retry storm.
  fake.reset();
  const stormStart = performance.now();
  const customers = Array.from({ length: STORM }, (_, i) => `4916${String(10_000_000 + i)}`);
  const BATCH = 50;
  for (let i = 0; i < customers.length; i += BATCH) {
    await Promise.all(
      customers.slice(i, i + BATCH).map((from) => {
        const raw = payload(from, `wamid.STORM${randomUUID()}`, 'Hallo');
        return Promise.all([post(raw), post(raw), post(raw)]);
      }),
    );
  }
  await waitFor('replies of the storm', () => repliesByCustomer().size >= STORM, 300_000);
  await sleep(3000);
  const storm = repliesByCustomer();
  const twice = [...storm.values()].filter((at) => at.length > 1).length;
  const count = [...storm.values()].reduce((n, at) => n + at.length, 0);
  console.log(
    `Retry storm: ${STORM} webhooks × 3 concurrently → ${count} replies (${twice} customers answered more than once) in ${((performance.now() - stormStart) / 1000).toFixed(1)} s`,
  );

  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  await fake.close();
}

main().then(
  // The service process stays up until the generator stops it.
  () => process.argv.includes('--serve') || process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
