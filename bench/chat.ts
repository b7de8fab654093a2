/**
 * Chat endpoint benchmark: POST /api/bot-chat/:botId/chat with the built-in offline model,
 * on PGlite and on PostgreSQL, next to bare Fastify endpoints (GET and POST with a JSON body)
 * as the machine's ceiling, and the round-trip floor (a bare Fastify POST that sends a chat's
 * number of trivial statements to PostgreSQL, `--floor_statements=4`). Each server runs in its own child process (so the load generator
 * does not share its event loop).
 *
 *   npm run bench:chat                          # profile "distinct", all targets
 *   npm run bench:chat -- --profile=zipf --targets=postgres
 *   BENCH_PROFILE=stream BENCH_TARGETS=pglite npm run bench:chat
 *
 * Profiles (BENCH_PROFILE or --profile=):
 * - distinct: every request sends a message practically never sent before (words drawn from a
 *   vocabulary of 5,000), so token-count and word caches hit no more often than in real traffic;
 * - zipf: messages drawn from 2,000 distinct ones with a Zipf distribution (rank r has weight
 *   1/r), like FAQ traffic where a few questions come back often;
 * - stream: a fake model that streams its reply for BENCH_STREAM_MS (2 s), BENCH_STREAMS
 *   (2,000) concurrent chats with Accept: text/event-stream; a refused chat (503) is retried
 *   after its Retry-After, as a client would.
 * Every profile reports req/s (or completion), p50/p99, /health p99 sampled during the run,
 * peak RSS and CPU milliseconds per request of the service, of PostgreSQL's backends and of
 * the load generator.
 *
 * Memory runs: with BENCH_AMOUNT, BENCH_SAMPLE_EVERY=<n> prints the service's memory after every
 * n answered chats (RSS, V8 heap, external and array buffers of the main thread, and the
 * resident part of WebAssembly memories, i.e. PGlite's), and BENCH_HEAP_SNAPSHOT=<dir> writes
 * a heap snapshot of the service's main thread into dir after the load, before it is stopped
 * (`npm run bench:heap -- <file>` summarises it).
 *
 * PostgreSQL runs in a scratch database that is created and dropped here. The tenants have
 * unlimited plans and the rate limit is raised (CHAT_RATE_LIMIT_MAX), so the figures measure
 * the pipeline, not the limits. Every request opens a new conversation and stores two
 * messages, searches the knowledge base and counts tokens, as in production.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { join, resolve as resolvePath } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { writeHeapSnapshot } from 'node:v8';
import Fastify from 'fastify';
import pg from 'pg';
import type { ModelProvider } from '../src/modules/models/provider.js';
import {
  announceReady,
  benchContext,
  benchTenant,
  cpuMs,
  DEFAULT_POSTGRES_URL,
  knowledgeDeps,
  loadAverage,
  memoryOf,
  percentile,
  portOf,
  postgresBackends,
  setting,
  startService,
  withPgliteDir,
  withScratchPostgres,
} from './harness.js';

/** The part of autocannon's API used here (the package ships no type declarations). */
interface CannonRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: CannonRequest) => CannonRequest;
}
interface CannonOptions {
  url: string;
  connections: number;
  duration?: number;
  amount?: number;
  requests?: CannonRequest[];
}
interface CannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  duration: number;
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats?: Record<string, { count: number }>;
}
type Autocannon = (
  options: CannonOptions,
  done: (error: Error | null, result: CannonResult) => void,
) => { on(event: 'response', listener: () => void): void };
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

type Profile = 'distinct' | 'zipf' | 'stream';
const PROFILE = setting('profile', 'distinct') as Profile;
if (!['distinct', 'zipf', 'stream'].includes(PROFILE)) throw new Error(`unknown profile ${PROFILE}`);
const DURATION = Number(setting('duration', '10'));
const WARMUP = Number(setting('warmup', '3'));
/** A fixed number of chats instead of a duration (memory runs), e.g. --amount=20000. */
const AMOUNT = Number(setting('amount', '0'));
const CONNECTIONS = Number(setting('connections', '50'));
/** With an amount: print the service's memory after every this many answered chats. */
const SAMPLE_EVERY = Number(setting('sample_every', '0'));
/** A directory: write a heap snapshot of the service there after the load. */
const HEAP_SNAPSHOT = setting('heap_snapshot', '');
const STREAMS = Number(setting('streams', '2000'));
const STREAM_MS = Number(setting('stream_ms', '2000'));
const POSTGRES_URL = setting('database_url', DEFAULT_POSTGRES_URL);
const SELF = fileURLToPath(import.meta.url);
/** Which targets to run, e.g. --targets=hello,postgres (default: all four). */
const TARGETS = new Set(
  setting('targets', 'hello,floor,pglite,postgres')
    .split(',')
    .map((t) => t.trim()),
);
/*
 * Load comes from several tenants, as on a multi-tenant platform: one tenant's requests all
 * update its usage counter row, which caps a single tenant near one commit per request.
 */
const TENANTS = Number(setting('tenants', '10'));

const KNOWLEDGE = [
  {
    title: 'Öffnungszeiten',
    content: 'Wir haben Montag bis Freitag von 9 bis 18 Uhr geöffnet, samstags von 9 bis 14 Uhr.',
  },
  { title: 'Preise', content: 'Ein Haarschnitt kostet 35 Euro, Färben ab 60 Euro, Bartpflege 15 Euro.' },
  { title: 'Parken', content: 'Parking is available in the courtyard behind the salon, free for customers.' },
  { title: 'Termine', content: 'Termine buchen Sie online über unsere Website oder telefonisch.' },
];

// ---------------------------------------------------------------------------------------
// Messages: distinct ones and a Zipf mix
// ---------------------------------------------------------------------------------------

/** A small deterministic generator, so runs are comparable. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const TEMPLATES = [
  (w: string[]) => `Wann habt ihr am ${w[0]} geöffnet, auch für ${w[1]}?`,
  (w: string[]) => `Was kostet ein ${w[0]} mit ${w[1]} und ${w[2]}?`,
  (w: string[]) => `Where can I park near the ${w[0]} when I bring my ${w[1]}?`,
  (w: string[]) => `Kann ich einen Termin für ${w[0]} ${w[1]} online buchen?`,
  (w: string[]) => `Habt ihr Erfahrung mit ${w[0]}, ${w[1]} oder ${w[2]}?`,
  (w: string[]) => `Is the ${w[0]} open on holidays, and do you sell ${w[1]}?`,
];
const SYLLABLES =
  'ka lo mi ster ber gen haar schnitt farb ton wel le bart pfle ge sa lon ter min preis rot blau mor gen'.split(
    ' ',
  );

/** Index drawn with weight 1/(rank+1) from a cumulative table (Zipf, as word and question frequencies are). */
function zipfIndex(cumulative: number[], random: () => number): number {
  const target = random() * cumulative[cumulative.length - 1]!;
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function zipfTable(size: number): number[] {
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= size; rank++) cumulative.push((total += 1 / rank));
  return cumulative;
}

/**
 * Messages that are practically never repeated: three to five words drawn (Zipf) from a
 * vocabulary of 5,000 made-up words put into one of a few question templates, so words recur
 * as in real language while whole messages do not.
 */
function messageSource(seed: number): () => string {
  const random = lcg(seed);
  const vocabulary = Array.from({ length: 5000 }, () => {
    const parts = 2 + Math.floor(random() * 3);
    let w = '';
    for (let i = 0; i < parts; i++) w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    return w;
  });
  const table = zipfTable(vocabulary.length);
  const word = () => vocabulary[zipfIndex(table, random)]!;
  return () => {
    const template = TEMPLATES[Math.floor(random() * TEMPLATES.length)]!;
    const extra = random() < 0.5 ? ` ${word()} ${word()}` : '';
    return `${template([word(), word(), word()])}${extra}`;
  };
}

/** Zipf-distributed draws (weight 1/rank) from `size` distinct messages. */
function zipfSource(size: number, seed: number): () => string {
  const next = messageSource(seed);
  const pool = Array.from({ length: size }, next);
  const table = zipfTable(size);
  const random = lcg(seed + 1);
  return () => pool[zipfIndex(table, random)]!;
}

// ---------------------------------------------------------------------------------------
// Child: one server
// ---------------------------------------------------------------------------------------

type Target = 'hello' | 'floor' | 'pglite' | 'postgres';
/**
 * The round-trip floor: a bare Fastify POST that sends as many trivial prepared statements to
 * PostgreSQL, one after another, as a chat without a hand-over does (admission, words, search,
 * exchange), through a pool of the service's size. What a chat costs above it is the
 * pipeline's own work and its statements' execution.
 */
const FLOOR_STATEMENTS = Number(setting('floor_statements', '4'));

interface Ready {
  port: number;
  tenants: { apiKey: string; botId: string }[];
}

async function serveHello(): Promise<Ready> {
  const app = Fastify({ logger: false });
  app.get('/hello', async () => ({ hello: 'world' }));
  app.post('/echo', async (request) => ({ reply: (request.body as { message?: string }).message ?? '' }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { port: portOf(app), tenants: [] };
}

async function serveFloor(): Promise<Ready> {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const app = Fastify({ logger: false });
  app.post('/echo', async (request) => {
    let text = (request.body as { message?: string }).message ?? '';
    for (let i = 0; i < FLOOR_STATEMENTS; i++) {
      const { rows } = await pool.query<{ text: string }>({
        name: `floor-${i}`,
        text: 'SELECT $1::text AS text',
        values: [text],
      });
      text = rows[0]!.text;
    }
    return { reply: text };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { port: portOf(app), tenants: [] };
}

async function serveParley(): Promise<Ready> {
  const { buildApp } = await import('../src/app.js');
  const { importEntries } = await import('../src/modules/knowledge/service.js');

  const ctx = await benchContext({
    // Background jobs run as in production (on PGlite they include the table maintenance).
    WEBHOOK_WORKER: 'true',
    CHAT_RATE_LIMIT_MAX: '10000000',
  });
  if (PROFILE === 'stream') ctx.model = slowStreaming(ctx.model, STREAM_MS);
  const tenants: Ready['tenants'] = [];
  for (let i = 0; i < TENANTS; i++) {
    const { tenant, bot } = await benchTenant(
      ctx,
      { name: 'Bench bot', system_prompt: 'Du bist der Assistent eines Salons.' },
      `Bench ${i}`,
    );
    await importEntries(knowledgeDeps(ctx), tenant.id, { botId: bot.id }, KNOWLEDGE, null);
    const { key } = await ctx.apiKeys.issue({ tenantId: tenant.id });
    tenants.push({ apiKey: key, botId: bot.id });
  }
  const app = await buildApp(ctx);
  await app.listen({ port: 0, host: '127.0.0.1', backlog: 4096 });
  return { port: portOf(app), tenants };
}

/** The offline answer, streamed in ten pieces spread over `ms` milliseconds. */
function slowStreaming(model: ModelProvider, ms: number): ModelProvider {
  const pause = (delay: number) => new Promise((resolve) => setTimeout(resolve, delay));
  return {
    name: model.name,
    generate: (request) => model.generate(request),
    async *stream(request) {
      const reply = await model.generate(request);
      const words = reply.text.split(/(?<= )/);
      const pieces = 10;
      const size = Math.ceil(words.length / pieces);
      for (let i = 0; i < pieces; i++) {
        await pause(ms / pieces);
        const text = words.slice(i * size, (i + 1) * size).join('');
        if (text) yield { type: 'delta', text };
      }
      yield { type: 'done', reply };
    },
  };
}

/** Asked by the parent over the IPC channel: memory figures, or a heap snapshot. */
type ChildRequest = { op: 'memory' } | { op: 'snapshot'; dir: string };

async function child(target: Target): Promise<void> {
  const ready =
    target === 'hello' ? await serveHello() : target === 'floor' ? await serveFloor() : await serveParley();
  // A normal exit, so `node --cpu-prof` / `--heap-prof` can write their profiles.
  process.once('SIGTERM', () => process.exit(0));
  process.on('message', (request: ChildRequest) => {
    if (request.op === 'memory') process.send!({ memory: process.memoryUsage() });
    else
      process.send!({
        snapshot: writeHeapSnapshot(join(request.dir, `chat-${target}-${process.pid}.heapsnapshot`)),
      });
  });
  announceReady(ready);
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
  endRssMb: number;
  healthP99: number;
  cpu: { service: number; postgres: number; generator: number };
  extra?: string;
}

function startServer(
  target: Target,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; ready: Ready }> {
  // One instance, in-memory rate-limit counters: the figures are the pipeline's own.
  return startService<Ready>(SELF, {
    args: [target, `--profile=${PROFILE}`],
    env,
    ipc: true,
    name: `${target} server`,
  });
}

/**
 * Resident WebAssembly memory of a process, in MB. V8 reserves 10 GB of address space for each
 * memory: 2 GB inaccessible, then the memory's pages (read-write), then the inaccessible rest;
 * the read-write mapping between the two is the memory (PGlite's, in the service).
 */
function wasmMemoryOf(pid: number): number {
  let smaps: string;
  try {
    smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return NaN;
  }
  const maps: { start: number; end: number; perm: string; rssKb: number }[] = [];
  for (const line of smaps.split('\n')) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) (\S+)/.exec(line);
    if (range)
      maps.push({ start: parseInt(range[1]!, 16), end: parseInt(range[2]!, 16), perm: range[3]!, rssKb: 0 });
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && maps.length > 0) maps[maps.length - 1]!.rssKb = Number(rss[1]);
  }
  let kb = 0;
  for (let i = 1; i < maps.length - 1; i++) {
    const [before, map, after] = [maps[i - 1]!, maps[i]!, maps[i + 1]!];
    const guarded =
      before.perm === '---p' && before.end === map.start && before.end - before.start === 2 ** 31;
    if (map.perm === 'rw-p' && guarded && after.perm === '---p' && after.start === map.end) kb += map.rssKb;
  }
  return kb / 1024;
}

/** Sends a request to the service over its IPC channel and waits for the answer. */
function ask<T>(child: ChildProcess, request: ChildRequest): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (answer) => resolve(answer as T));
    child.send(request);
  });
}

/** One line of memory figures of the service, in MB. */
async function memoryLine(child: ChildProcess, label: string): Promise<string> {
  const { memory } = await ask<{ memory: NodeJS.MemoryUsage }>(child, { op: 'memory' });
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  return (
    `${label}: RSS ${memoryOf(child.pid!, 'VmRSS').toFixed(0)} MB (peak ${memoryOf(child.pid!, 'VmHWM').toFixed(0)}), ` +
    `heap used ${mb(memory.heapUsed)} of ${mb(memory.heapTotal)}, external ${mb(memory.external)} ` +
    `(array buffers ${mb(memory.arrayBuffers)}), WebAssembly ${wasmMemoryOf(child.pid!).toFixed(0)}`
  );
}

function generatorCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

function cannon(options: CannonOptions, onResponse?: () => void): Promise<CannonResult> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
    if (onResponse) instance.on('response', onResponse);
  });
}

/** Samples GET /health every 20 ms on a connection of its own until stopped; returns latencies. */
function sampleHealth(port: number): { stop(): Promise<number[]> } {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      await new Promise<void>((resolve) => {
        const req = httpRequest({ port, host: '127.0.0.1', path: '/health', agent }, (res) => {
          res.resume();
          res.on('end', () => resolve());
        });
        req.on('error', () => resolve());
        req.end();
      });
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      agent.destroy();
      return latencies;
    },
  };
}

function chatRequests(ready: Ready): CannonRequest[] {
  const next = PROFILE === 'zipf' ? zipfSource(2000, 7) : messageSource(7);
  let turn = 0;
  return [
    {
      method: 'POST',
      path: '/',
      setupRequest: (request) => {
        const tenant = ready.tenants[turn++ % ready.tenants.length]!;
        return {
          ...request,
          path: `/api/bot-chat/${tenant.botId}/chat`,
          headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ message: next(), sender_id: 'bench' }),
        };
      },
    },
  ];
}

interface Measured {
  requests: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  completed: number;
  extra?: string;
}

async function measure(
  name: string,
  target: Target,
  env: Record<string, string>,
  drive: (ready: Ready, onResponse?: () => void) => Promise<Measured>,
  warm: (ready: Ready) => Promise<unknown>,
  postgresUrl?: string,
): Promise<Result> {
  const { child, ready } = await startServer(target, env);
  // Memory samples, one after another over the IPC channel, printed as they come.
  let samples = Promise.resolve();
  const sample = (label: string) => {
    samples = samples.then(async () => console.log(`${name}, ${await memoryLine(child, label)}`));
  };
  let answered = 0;
  const onResponse =
    SAMPLE_EVERY > 0 && AMOUNT > 0
      ? () => {
          answered += 1;
          if (answered % SAMPLE_EVERY === 0) sample(`${answered} chats`);
        }
      : undefined;
  try {
    await warm(ready);
    if (onResponse) sample('after warm-up');
    const backends = await postgresBackends(postgresUrl);
    const cpuBefore = {
      service: cpuMs([child.pid!]),
      postgres: cpuMs(backends),
      generator: generatorCpuMs(),
    };
    const health = sampleHealth(ready.port);
    const measured = await drive(ready, onResponse);
    const healthLatencies = await health.stop();
    await samples;
    const perRequest = (after: number, before: number) => (after - before) / Math.max(1, measured.completed);
    const result = {
      name,
      ...measured,
      peakRssMb: memoryOf(child.pid!, 'VmHWM'),
      endRssMb: memoryOf(child.pid!, 'VmRSS'),
      healthP99: percentile(healthLatencies, 99),
      cpu: {
        service: perRequest(cpuMs([child.pid!]), cpuBefore.service),
        postgres: perRequest(cpuMs(backends), cpuBefore.postgres),
        generator: perRequest(generatorCpuMs(), cpuBefore.generator),
      },
    };
    if (HEAP_SNAPSHOT) {
      mkdirSync(HEAP_SNAPSHOT, { recursive: true });
      const { snapshot } = await ask<{ snapshot: string }>(child, {
        op: 'snapshot',
        dir: resolvePath(HEAP_SNAPSHOT),
      });
      console.log(`${name}: heap snapshot ${snapshot}`);
    }
    return result;
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

function fromCannon(result: CannonResult): Measured {
  return {
    requests: result['2xx'] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    completed: result['2xx'],
    extra:
      result.non2xx > 0
        ? `status codes ${Object.entries(result.statusCodeStats ?? {})
            .map(([code, { count }]) => `${code}: ${count}`)
            .join(', ')}`
        : undefined,
  };
}

/** Load with autocannon: the ceilings and the distinct / zipf profiles. */
function cannonDrive(target: Target, method: 'GET' | 'POST' = 'GET') {
  const options = (ready: Ready): CannonOptions => {
    const url = `http://127.0.0.1:${ready.port}`;
    if (target !== 'hello' && target !== 'floor') {
      return { url, connections: CONNECTIONS, requests: chatRequests(ready) };
    }
    if (method === 'GET') return { url: `${url}/hello`, connections: CONNECTIONS };
    const next = messageSource(7);
    return {
      url,
      connections: CONNECTIONS,
      requests: [
        {
          method: 'POST',
          path: '/echo',
          setupRequest: (request) => ({
            ...request,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ message: next(), sender_id: 'bench' }),
          }),
        },
      ],
    };
  };
  return {
    warm: async (ready: Ready) => {
      if (WARMUP > 0) await cannon({ ...options(ready), duration: WARMUP });
    },
    drive: async (ready: Ready, onResponse?: () => void) =>
      fromCannon(
        await cannon(
          { ...options(ready), ...(AMOUNT > 0 ? { amount: AMOUNT } : { duration: DURATION }) },
          onResponse,
        ),
      ),
  };
}

/**
 * STREAMS concurrent chats with Accept: text/event-stream, all started at once; a 503 is
 * retried after its Retry-After. Time to first byte counts from the first attempt to the
 * first delta; a chat completes when its `done` event arrives.
 */
async function streamDrive(ready: Ready): Promise<Measured> {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const next = messageSource(11);
  const firstBytes: number[] = [];
  const totals: number[] = [];
  let completed = 0;
  let refused = 0;
  let errors = 0;
  const started = performance.now();
  const one = (i: number) =>
    new Promise<void>((resolve) => {
      const tenant = ready.tenants[i % ready.tenants.length]!;
      const body = JSON.stringify({ message: next(), sender_id: 'bench' });
      const t0 = performance.now();
      const attempt = () => {
        const req = httpRequest(
          {
            port: ready.port,
            host: '127.0.0.1',
            method: 'POST',
            path: `/api/bot-chat/${tenant.botId}/chat`,
            agent,
            headers: {
              authorization: `Bearer ${tenant.apiKey}`,
              'content-type': 'application/json',
              accept: 'text/event-stream',
            },
          },
          (res) => {
            if (res.statusCode === 503) {
              refused += 1;
              res.resume();
              const wait = Number(res.headers['retry-after'] ?? 1) * 1000;
              setTimeout(attempt, wait * (0.5 + Math.random()));
              return;
            }
            let text = '';
            let first = true;
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              if (first && chunk.includes('event: delta')) {
                first = false;
                firstBytes.push(performance.now() - t0);
              }
              text += chunk;
            });
            res.on('end', () => {
              if (res.statusCode === 200 && text.includes('event: done')) {
                completed += 1;
                totals.push(performance.now() - t0);
              } else errors += 1;
              resolve();
            });
          },
        );
        req.on('error', () => {
          errors += 1;
          resolve();
        });
        req.end(body);
      };
      attempt();
    });
  await Promise.all(Array.from({ length: STREAMS }, (_, i) => one(i)));
  agent.destroy();
  const seconds = (performance.now() - started) / 1000;
  return {
    requests: completed / seconds,
    p50: percentile(firstBytes, 50),
    p99: percentile(firstBytes, 99),
    non2xx: refused,
    errors,
    completed,
    extra:
      `${completed}/${STREAMS} streams complete in ${seconds.toFixed(1)} s; ` +
      `TTFB p50 ${percentile(firstBytes, 50).toFixed(0)} ms, p99 ${percentile(firstBytes, 99).toFixed(0)} ms; ` +
      `whole chat p50 ${percentile(totals, 50).toFixed(0)} ms, p99 ${percentile(totals, 99).toFixed(0)} ms; ` +
      `${refused} answers 503 (retried)`,
  };
}

function report(results: Result[]): void {
  const ceiling = results.find((r) => r.name.startsWith('ceiling: bare Fastify POST'))?.requests ?? NaN;
  const rows = results.map((r) => ({
    target: r.name,
    'req/s': Math.round(r.requests),
    'p50 ms': Math.round(r.p50),
    'p99 ms': Math.round(r.p99),
    'health p99 ms': Math.round(r.healthP99 * 10) / 10,
    'peak RSS MB': Math.round(r.peakRssMb),
    'end RSS MB': Math.round(r.endRssMb),
    'CPU ms/req service': r.cpu.service.toFixed(2),
    'CPU ms/req PostgreSQL': r.cpu.postgres.toFixed(2),
    'CPU ms/req generator': r.cpu.generator.toFixed(2),
    'of POST ceiling': `${((r.requests / ceiling) * 100).toFixed(1)} %`,
    'non-2xx': r.non2xx,
    errors: r.errors,
  }));
  console.table(rows);
  for (const r of results) if (r.extra) console.log(`${r.name}: ${r.extra}`);
}

async function main(): Promise<void> {
  const load = loadAverage().join(' ');
  console.log(
    PROFILE === 'stream'
      ? `Chat benchmark, profile stream: ${STREAMS} concurrent streams of ${STREAM_MS} ms, ${TENANTS} tenants; load average ${load}`
      : `Chat benchmark, profile ${PROFILE}: ${CONNECTIONS} connections, ${TENANTS} tenants, ` +
          `${AMOUNT > 0 ? `${AMOUNT} requests` : `${DURATION} s`} per target (after ${WARMUP} s warm-up); load average ${load}`,
  );
  const results: Result[] = [];
  const chat = (target: Target) =>
    PROFILE === 'stream' ? { drive: streamDrive, warm: async () => undefined } : cannonDrive(target);
  if (TARGETS.has('hello') && PROFILE !== 'stream') {
    for (const method of ['GET', 'POST'] as const) {
      const { drive, warm } = cannonDrive('hello', method);
      const label = method === 'GET' ? 'GET /hello' : 'POST /echo (JSON body)';
      results.push(await measure(`ceiling: bare Fastify ${label}`, 'hello', {}, drive, warm));
    }
  }
  if (TARGETS.has('floor') && PROFILE !== 'stream') {
    const floor = await withScratchPostgres(
      POSTGRES_URL,
      'parley_bench_chat',
      (url) => {
        const { drive, warm } = cannonDrive('floor', 'POST');
        const name = `floor: bare Fastify POST + ${FLOOR_STATEMENTS} statements (PostgreSQL)`;
        return measure(name, 'floor', { DATABASE_URL: url }, drive, warm, url);
      },
      { optional: true },
    );
    if (floor) results.push(floor);
  }
  if (TARGETS.has('pglite')) {
    const { drive, warm } = chat('pglite');
    results.push(
      await withPgliteDir('parley-bench-chat', (dataDir) =>
        measure('chat, PGlite', 'pglite', { PARLEY_DATA_DIR: dataDir, DATABASE_URL: '' }, drive, warm),
      ),
    );
  }
  if (TARGETS.has('postgres')) {
    const pgResult = await withScratchPostgres(
      POSTGRES_URL,
      'parley_bench_chat',
      (url) => {
        const { drive, warm } = chat('postgres');
        return measure('chat, PostgreSQL', 'postgres', { DATABASE_URL: url }, drive, warm, url);
      },
      { optional: true },
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
