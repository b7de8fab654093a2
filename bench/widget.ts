/**
 * Widget benchmark: one service instance on PostgreSQL (a scratch database created and dropped
 * here) holding many widget event streams (GET /v1/widget/events) at once, with /health sampled
 * meanwhile, and the delay between a streaming model's first token and that token reaching the
 * widget's client (POST /v1/widget/messages with Accept: text/event-stream). Prints figures;
 * asserts nothing.
 *
 *   npm run bench:widget                                # 2,000 streams (run on an idle machine)
 *   npm run bench:widget -- --streams=50 --seconds=5    # small scale: proves it works
 *
 * Settings (--name=value or BENCH_NAME): streams (2000), seconds of /health sampling while the
 * streams are held (20), messages for the first-token figure (50), first_token_ms, the fake
 * model's wait before its first token (200), database_url (postgres://postgres@127.0.0.1:5432/test).
 *
 * Targets: /health p99 ≤ 50 ms with every stream held; RSS printed; first token at the client
 * ≤ 300 ms after the model produced it. The fake model writes the time it yields the first
 * token into that token, so the client measures the service's own share on the same clock.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { ModelProvider } from '../src/modules/models/provider.js';
import {
  announceReady,
  benchContext,
  benchTenant,
  DEFAULT_POSTGRES_URL,
  loadAverage,
  memoryOf,
  percentile,
  portOf,
  setting,
  startService,
  withScratchPostgres,
} from './harness.js';

const STREAMS = Number(setting('streams', '2000'));
const SECONDS = Number(setting('seconds', '20'));
const MESSAGES = Number(setting('messages', '50'));
const FIRST_TOKEN_MS = Number(setting('first_token_ms', '200'));
const POSTGRES_URL = setting('database_url', DEFAULT_POSTGRES_URL);
const SELF = fileURLToPath(import.meta.url);
const ORIGIN = 'https://bench.example';

interface Ready {
  port: number;
  tenantId: string;
  botId: string;
  publishableKey: string;
}

// ---------------------------------------------------------------------------------------
// Child: the service
// ---------------------------------------------------------------------------------------

/** A reply streamed word by word; the first delta carries the time it was produced (ms). */
function timedStreaming(model: ModelProvider, firstTokenMs: number): ModelProvider {
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  return {
    name: model.name,
    generate: (request) => model.generate(request),
    async *stream(request) {
      const reply = await model.generate(request);
      await pause(firstTokenMs);
      yield { type: 'delta', text: `[t=${Date.now()}] ` };
      for (const word of reply.text.split(/(?<= )/).slice(0, 20)) {
        await pause(5);
        yield { type: 'delta', text: word };
      }
      yield { type: 'done', reply };
    },
  };
}

async function serve(): Promise<void> {
  const { buildApp } = await import('../src/app.js');
  const { settingsOf } = await import('../src/modules/widget/service.js');
  const { updateSettings } = await import('../src/modules/widget/repository.js');
  const ctx = await benchContext({
    // Every message gets an answer; the offline model's "no answer" would hand the visitor over.
    HANDOVER_ON_NO_ANSWER: 'false',
    WIDGET_RATE_LIMIT_IP: '10000000',
    WIDGET_RATE_LIMIT_KEY: '10000000',
    WIDGET_RATE_LIMIT_VISITOR: '10000000',
  });
  ctx.model = timedStreaming(ctx.model, FIRST_TOKEN_MS);
  const { tenant, bot } = await benchTenant(ctx, {
    name: 'Bench bot',
    system_prompt: 'Du bist ein Assistent.',
  });
  const settings = await settingsOf(ctx.db, tenant.id, bot.id);
  await updateSettings(ctx.db, tenant.id, bot.id, {
    enabled: true,
    allowed_origins: [ORIGIN],
    daily_message_budget: 10_000_000,
  });
  const app = await buildApp(ctx);
  await app.listen({ port: 0, host: '127.0.0.1', backlog: 8192 });
  const ready: Ready = {
    port: portOf(app),
    tenantId: tenant.id,
    botId: bot.id,
    publishableKey: settings.publishable_key,
  };
  announceReady(ready);
  process.on('SIGTERM', () => {
    void app
      .close()
      .then(() => ctx.close())
      .finally(() => process.exit(0));
  });
}

// ---------------------------------------------------------------------------------------
// Parent: the load
// ---------------------------------------------------------------------------------------

const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

function call(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function rssMb(pid: number): number {
  return memoryOf(pid, 'VmRSS');
}

function startPooledService(url: string): Promise<{ child: ChildProcess; ready: Ready }> {
  return startService<Ready>(SELF, {
    env: {
      DATABASE_URL: url,
      DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE ?? '20',
      PARLEY_SECRET_KEY: `bench:${randomBytes(32).toString('base64')}`,
    },
  });
}

interface Visitor {
  token: string;
  visitorId: string;
}

async function newVisitor(ready: Ready): Promise<Visitor> {
  const res = await call(
    ready.port,
    'POST',
    '/v1/widget/sessions',
    { origin: ORIGIN },
    {
      publishable_key: ready.publishableKey,
    },
  );
  if (res.status !== 201) throw new Error(`session: ${res.status} ${res.text}`);
  const body = JSON.parse(res.text) as { token: string; visitor_id: string };
  return { token: body.token, visitorId: body.visitor_id };
}

/** Opens a visitor's event stream and keeps it; resolves with its status once the headers came. */
function holdStream(ready: Ready, visitor: Visitor, held: IncomingMessage[]): Promise<number> {
  return new Promise((resolve) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: ready.port,
        path: '/v1/widget/events',
        agent: false,
        headers: { origin: ORIGIN, authorization: `Bearer ${visitor.token}`, accept: 'text/event-stream' },
      },
      (res) => {
        held.push(res);
        res.on('data', () => undefined);
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', () => resolve(0));
    req.end();
  });
}

/** One streamed message; the ms between the model's first token and its arrival here. */
function firstTokenDelay(ready: Ready, visitor: Visitor): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: ready.port,
        method: 'POST',
        path: '/v1/widget/messages',
        agent,
        headers: {
          origin: ORIGIN,
          authorization: `Bearer ${visitor.token}`,
          accept: 'text/event-stream',
          'content-type': 'application/json',
        },
      },
      (res) => {
        let text = '';
        let measured: number | undefined;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          const stamp = /\[t=(\d+)\]/.exec(text);
          if (measured === undefined && stamp) measured = Date.now() - Number(stamp[1]);
        });
        res.on('end', () =>
          measured === undefined
            ? reject(new Error(`no token: ${res.statusCode} ${text}`))
            : resolve(measured),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ text: 'Hallo, wann habt ihr geöffnet?' }));
  });
}

/** How often each value occurs. */
function countBy(values: number[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

async function main(): Promise<void> {
  await withScratchPostgres(POSTGRES_URL, 'parley_bench_widget', measure, { optional: true });
}

async function measure(url: string): Promise<void> {
  let child: ChildProcess | undefined;
  const held: IncomingMessage[] = [];
  try {
    const started = await startPooledService(url);
    child = started.child;
    const { ready } = started;
    const db = new pg.Client({ connectionString: url });
    db.on('error', () => undefined);
    await db.connect();
    const idleRss = rssMb(child.pid!);

    // First token: one visitor, messages one after another.
    const talker = await newVisitor(ready);
    const delays: number[] = [];
    for (let i = 0; i < MESSAGES; i++) delays.push(await firstTokenDelay(ready, talker));

    // Streams: visitors with an open conversation each (written directly: the figure is about
    // holding streams, not about answering), then every stream opened at once.
    const visitors: Visitor[] = [];
    for (let i = 0; i < STREAMS; i += 100) {
      visitors.push(
        ...(await Promise.all(Array.from({ length: Math.min(100, STREAMS - i) }, () => newVisitor(ready)))),
      );
    }
    for (let i = 0; i < visitors.length; i += 500) {
      const chunk = visitors.slice(i, i + 500);
      await db.query(
        `INSERT INTO conversations (id, tenant_id, bot_id, channel, sender_id, metadata)
         SELECT gen_random_uuid(), $1, $2, 'widget', v, '{}'::jsonb FROM unnest($3::text[]) AS v`,
        [ready.tenantId, ready.botId, chunk.map((v) => v.visitorId)],
      );
    }
    // A stream refused while the database is busy (503, Retry-After: 1) is opened again after a
    // second, as the widget does; the first round's refusals are reported.
    const opening = Date.now();
    let waiting = visitors;
    const statuses: number[] = [];
    for (let round = 0; round < 5 && waiting.length > 0; round++) {
      if (round > 0) await new Promise((resolve) => setTimeout(resolve, 1000));
      const refused: Visitor[] = [];
      for (let i = 0; i < waiting.length; i += 200) {
        const chunk = waiting.slice(i, i + 200);
        const results = await Promise.all(chunk.map((v) => holdStream(ready, v, held)));
        results.forEach((status, k) => {
          if (round === 0) statuses.push(status);
          if (status !== 200) refused.push(chunk[k]!);
        });
      }
      waiting = refused;
    }
    const openSeconds = (Date.now() - opening) / 1000;
    const open = visitors.length - waiting.length;

    // /health while every stream is held.
    const health: number[] = [];
    const until = Date.now() + SECONDS * 1000;
    while (Date.now() < until) {
      const t0 = performance.now();
      await call(ready.port, 'GET', '/health', {});
      health.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const heldRss = rssMb(child.pid!);
    const stillOpen = held.filter((res) => !res.complete && !res.destroyed).length;
    await db.end();

    const cores = cpus().length;
    const load = loadAverage()[0]!.toFixed(2);
    console.log(`Widget benchmark on PostgreSQL (one instance; ${cores} cores, load average ${load})`);
    console.log(
      `  event streams: ${open}/${STREAMS} opened in ${openSeconds.toFixed(1)} s, ${stillOpen} still open after ${SECONDS} s` +
        (open < statuses.length
          ? ` (refused: ${JSON.stringify(countBy(statuses.filter((s) => s !== 200)))})`
          : ''),
    );
    console.log(
      `  /health during the streams: ${health.length} samples, p50 ${percentile(health, 50).toFixed(1)} ms, ` +
        `p99 ${percentile(health, 99).toFixed(1)} ms (target ≤ 50 ms)`,
    );
    console.log(
      `  service RSS: ${idleRss.toFixed(0)} MB before, ${heldRss.toFixed(0)} MB holding the streams ` +
        `(${(((heldRss - idleRss) * 1024) / Math.max(1, open)).toFixed(1)} KB per stream)`,
    );
    console.log(
      `  first token at the client after the model's first token: ${delays.length} messages, ` +
        `p50 ${percentile(delays, 50)} ms, p99 ${percentile(delays, 99)} ms, max ${Math.max(...delays)} ms (target ≤ 300 ms)`,
    );
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
  } finally {
    for (const res of held) res.destroy();
    child?.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    agent.destroy();
  }
}

if (process.argv.includes('--serve')) {
  void serve();
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
