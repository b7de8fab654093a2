/**
 * Chat endpoint benchmark: POST /api/bot-chat/:botId/chat with the built-in offline model,
 * on PGlite and on PostgreSQL, against a bare Fastify "hello" endpoint as the machine's
 * ceiling. Each server runs in its own child process (so the load generator does not share
 * its event loop); autocannon drives it with 50 connections.
 *
 *   npm run bench:chat
 *   BENCH_DURATION=10 BENCH_CONNECTIONS=50 BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:chat
 *
 * PostgreSQL runs in a scratch database that is created and dropped here. The tenant has an
 * unlimited plan and the rate limit is raised (CHAT_RATE_LIMIT_MAX), so the figures measure
 * the pipeline, not the limits. Every request opens a new conversation and stores two
 * messages, searches the knowledge base and counts tokens, as in production.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import pg from 'pg';

/** The part of autocannon's API used here (the package ships no type declarations). */
interface CannonOptions {
  url: string;
  connections: number;
  duration?: number;
  requests?: { method: 'POST'; path: string; headers: Record<string, string>; body: string }[];
}
interface CannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Autocannon = (
  options: CannonOptions,
  done: (error: Error | null, result: CannonResult) => void,
) => unknown;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SELF = fileURLToPath(import.meta.url);
/** Which targets to run, e.g. BENCH_TARGETS=hello,postgres (default: all three). */
const TARGETS = new Set(
  (process.env.BENCH_TARGETS ?? 'hello,pglite,postgres').split(',').map((t) => t.trim()),
);

const MESSAGES = [
  'Wann habt ihr geöffnet?',
  'Was kostet ein Haarschnitt?',
  'Where can I park?',
  'Kann ich einen Termin online buchen?',
  'Wie ist das Wetter morgen?',
];

const KNOWLEDGE = [
  {
    title: 'Öffnungszeiten',
    content: 'Wir haben Montag bis Freitag von 9 bis 18 Uhr geöffnet, samstags von 9 bis 14 Uhr.',
  },
  { title: 'Preise', content: 'Ein Haarschnitt kostet 35 Euro, Färben ab 60 Euro, Bartpflege 15 Euro.' },
  { title: 'Parken', content: 'Parking is available in the courtyard behind the salon, free for customers.' },
  { title: 'Termine', content: 'Termine buchen Sie online über unsere Website oder telefonisch.' },
];

type Target = 'hello' | 'pglite' | 'postgres';

interface Ready {
  port: number;
  tenants: { apiKey: string; botId: string }[];
}

/*
 * Load comes from several tenants, as on a multi-tenant platform: one tenant's requests all
 * update its usage counter row, which caps a single tenant near one commit per request
 * (about 1,000 messages/s on this machine), far above any real tenant's chat rate.
 */
const TENANTS = Number(process.env.BENCH_TENANTS ?? 10);

// ---------------------------------------------------------------------------------------
// Child: one server
// ---------------------------------------------------------------------------------------

async function serveHello(): Promise<Ready> {
  const app = Fastify({ logger: false });
  app.get('/hello', async () => ({ hello: 'world' }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, tenants: [] };
}

async function serveParley(): Promise<Ready> {
  const { loadConfig } = await import('../src/config.js');
  const { createContext } = await import('../src/context.js');
  const { buildApp } = await import('../src/app.js');
  const { migrate } = await import('../src/db/migrate.js');
  const { createTenant } = await import('../src/modules/tenants/service.js');
  const { createBot } = await import('../src/modules/bots/service.js');
  const { importEntries } = await import('../src/modules/knowledge/service.js');

  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    MODEL_PROVIDER: 'offline',
    PARLEY_SEED_DEMO: 'false',
    WEBHOOK_WORKER: 'false',
    CHAT_RATE_LIMIT_MAX: '10000000',
    BCRYPT_COST: '4',
  });
  const ctx = await createContext(config);
  await migrate(ctx.db);
  const tenants: Ready['tenants'] = [];
  for (let i = 0; i < TENANTS; i++) {
    const { tenant } = await ctx.db.transaction((tx) =>
      createTenant(tx, { name: `Bench ${i}`, plan: 'enterprise' }),
    );
    const bot = await createBot(ctx.db, tenant.id, {
      name: 'Bench bot',
      system_prompt: 'Du bist der Assistent eines Salons.',
    });
    await importEntries(
      {
        db: ctx.db,
        embeddings: null,
        maxEntryBytes: config.knowledge.maxEntryBytes,
        minScore: config.knowledge.minScore,
      },
      tenant.id,
      { botId: bot.id },
      KNOWLEDGE,
      null,
    );
    const { key } = await ctx.apiKeys.issue({ tenantId: tenant.id });
    tenants.push({ apiKey: key, botId: bot.id });
  }
  const app = await buildApp(ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, tenants };
}

async function child(target: Target): Promise<void> {
  const ready = target === 'hello' ? await serveHello() : await serveParley();
  // A normal exit, so `node --cpu-prof` can write its profile.
  process.once('SIGTERM', () => process.exit(0));
  process.stdout.write(`READY ${JSON.stringify(ready)}\n`);
}

// ---------------------------------------------------------------------------------------
// Parent: start servers, drive them, report
// ---------------------------------------------------------------------------------------

interface Result {
  name: string;
  requests: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  peakRssMb: number;
}

function startServer(
  target: Target,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; ready: Ready }> {
  // BENCH_NODE_ARGS passes flags to the server process, e.g. "--cpu-prof --cpu-prof-dir=prof".
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', SELF, '--serve', target], {
    // One instance, in-memory rate-limit counters: the figures are the pipeline's own.
    env: { ...process.env, REDIS_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const line = /READY (.*)\n/.exec(buffer);
      if (line) resolve({ child, ready: JSON.parse(line[1]!) as Ready });
    });
    child.once('exit', (code) => reject(new Error(`${target} server exited with ${code}`)));
  });
}

/** Peak resident set size of a process (Linux: VmHWM), in MB. */
function peakRss(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

function cannon(options: CannonOptions): Promise<CannonResult> {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

async function measure(name: string, target: Target, env: Record<string, string> = {}): Promise<Result> {
  const { child, ready } = await startServer(target, env);
  try {
    const base = `http://127.0.0.1:${ready.port}`;
    const options: CannonOptions =
      target === 'hello'
        ? { url: `${base}/hello`, connections: CONNECTIONS }
        : {
            url: base,
            connections: CONNECTIONS,
            requests: ready.tenants.flatMap((tenant) =>
              MESSAGES.map((message) => ({
                method: 'POST' as const,
                path: `/api/bot-chat/${tenant.botId}/chat`,
                headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
                body: JSON.stringify({ message, sender_id: 'bench' }),
              })),
            ),
          };
    if (WARMUP > 0) await cannon({ ...options, duration: WARMUP });
    const result = await cannon({ ...options, duration: DURATION });
    return {
      name,
      requests: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
      peakRssMb: peakRss(child.pid!),
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

async function withScratchPostgres<T>(fn: (url: string) => Promise<T>): Promise<T | undefined> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  try {
    await admin.connect();
  } catch (error) {
    console.log(`PostgreSQL not reachable at ${POSTGRES_URL} (${(error as Error).message}); skipped.`);
    return undefined;
  }
  const name = `parley_bench_chat_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  try {
    return await fn(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

function report(results: Result[]): void {
  const ceiling = results.find((r) => r.name.startsWith('ceiling'))?.requests ?? NaN;
  const rows = results.map((r) => ({
    target: r.name,
    'req/s': Math.round(r.requests),
    'p50 ms': r.p50,
    'p99 ms': r.p99,
    'peak RSS MB': Math.round(r.peakRssMb),
    'of ceiling': `${((r.requests / ceiling) * 100).toFixed(1)} %`,
    'non-2xx': r.non2xx,
    errors: r.errors,
  }));
  console.table(rows);
  const postgres = results.find((r) => r.name.startsWith('chat, PostgreSQL'));
  if (postgres) {
    const checks = [
      [`≥ 1500 req/s`, postgres.requests >= 1500],
      [`p99 ≤ 100 ms`, postgres.p99 <= 100],
      [`RSS ≤ 300 MB`, postgres.peakRssMb <= 300],
    ] as const;
    console.log(
      `Targets on PostgreSQL: ${checks.map(([label, ok]) => `${label} ${ok ? 'met' : 'NOT met'}`).join(', ')}`,
    );
  }
}

async function main(): Promise<void> {
  console.log(
    `Chat benchmark: ${CONNECTIONS} connections, ${TENANTS} tenants, ${DURATION} s per target (after ${WARMUP} s warm-up)`,
  );
  const results: Result[] = [];
  if (TARGETS.has('hello')) results.push(await measure('ceiling: bare Fastify GET /hello', 'hello'));
  if (TARGETS.has('pglite')) {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-chat-'));
    try {
      results.push(await measure('chat, PGlite', 'pglite', { PARLEY_DATA_DIR: dataDir, DATABASE_URL: '' }));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  if (TARGETS.has('postgres')) {
    const pgResult = await withScratchPostgres((url) =>
      measure('chat, PostgreSQL', 'postgres', { DATABASE_URL: url }),
    );
    if (pgResult) results.push(pgResult);
  }
  report(results);
}

const serveIndex = process.argv.indexOf('--serve');
if (serveIndex !== -1) {
  await child(process.argv[serveIndex + 1] as Target);
} else {
  await main();
}
