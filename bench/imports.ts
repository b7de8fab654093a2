/**
 * Hostile document imports benchmark: starts the service in a child process (PGlite, and
 * PostgreSQL when reachable), probes GET /health continuously (one request after another) and
 * imports hostile documents one after another:
 * - a DOCX zip bomb (about 1.5 MB that unpack to 500 MB of XML),
 * - a PDF of 20,000 pages,
 * - ten files of 9.5 MB in one upload (over the request bound: refused), and five in one
 *   upload (accepted, each over the character limit),
 * - normal documents: a Markdown handbook of 300 chapters (about 0.9 MB, 300 entries), a PDF of
 *   200 text pages and a DOCX, in one upload (about 500 entries written).
 * A first scenario probes /health alone (the machine's noise floor). For each it prints the
 * import's outcome, /health p50/p99/max while it ran and the growth of
 * the service's resident set (RSS of the service's process; the parser processes are separate
 * and reported as the parsers' peak).
 *
 *   npm run bench:imports
 *   BENCH_TARGETS=pglite npm run bench:imports
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:imports
 *   BENCH_SCENARIOS=baseline,normal npm run bench:imports
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { textPdf, zipBombDocx } from '../test/knowledge/documents.js';
import {
  announceReady,
  benchContext,
  benchSession,
  benchTenant,
  DEFAULT_POSTGRES_URL,
  loadAverage,
  memoryOf,
  portOf,
  startService,
  withPgliteDir,
  withScratchPostgres,
} from './harness.js';

const SELF = fileURLToPath(import.meta.url);
const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? DEFAULT_POSTGRES_URL;
const TARGETS = new Set((process.env.BENCH_TARGETS ?? 'pglite,postgres').split(',').map((t) => t.trim()));
const MB = 1024 * 1024;
/** BENCH_SCENARIOS=normal,zip: only the scenarios whose names contain one of the words. */
const ONLY = process.env.BENCH_SCENARIOS?.split(',').map((word) => word.trim());

interface Ready {
  port: number;
  token: string;
  botId: string;
}

// ---------------------------------------------------------------------------------------
// Child: the service
// ---------------------------------------------------------------------------------------

async function serve(): Promise<void> {
  const { buildApp } = await import('../src/app.js');
  const ctx = await benchContext({ WEBHOOK_WORKER: 'true', WEBHOOK_POLL_INTERVAL_MS: '200' });
  const { tenant, bot } = await benchTenant(ctx);
  const { token } = await benchSession(ctx, tenant.id, 'editor');
  const app = await buildApp(ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const ready: Ready = { port: portOf(app), token, botId: bot.id };
  process.once('SIGTERM', () => process.exit(0));
  announceReady(ready);
}

// ---------------------------------------------------------------------------------------
// Parent: drive the service, measure, report
// ---------------------------------------------------------------------------------------

function statusOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
}

/** Resident set of a process in MB. */
const rssOf = (pid: number) => memoryOf(pid, 'VmRSS');

/** The service's child processes (the document parsers). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number)
      .filter((child) => /PPid:\s+(\d+)/.exec(statusOf(child))?.[1] === String(pid));
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/**
 * The /health prober: a thread of its own, so the benchmark's own work (building and sending
 * large bodies) never delays a probe. Plain JavaScript, evaluated as a worker.
 */
const PROBER = `
const { parentPort, workerData } = require('node:worker_threads');
const latencies = [];
let failures = 0;
let running = true;
parentPort.on('message', () => { running = false; });
(async () => {
  while (running) {
    const started = performance.now();
    try {
      const response = await fetch(workerData.url, { signal: AbortSignal.timeout(30000) });
      await response.arrayBuffer();
      if (!response.ok) failures += 1;
    } catch {
      failures += 1;
    }
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  parentPort.postMessage({ latencies, failures });
})();
`;

/** /health one request after another, and the RSS of the service and its parsers, until stopped. */
function probe(base: string, pid: number) {
  let peakRss = rssOf(pid);
  let peakParsers = 0;
  const prober = new Worker(PROBER, { eval: true, workerData: { url: `${base}/health` } });
  const result = new Promise<{ latencies: number[]; failures: number }>((resolve) =>
    prober.once('message', resolve),
  );
  const memory = setInterval(() => {
    peakRss = Math.max(peakRss, rssOf(pid));
    const parsers = childrenOf(pid).reduce((sum, child) => sum + (rssOf(child) || 0), 0);
    peakParsers = Math.max(peakParsers, parsers);
  }, 50);
  return async () => {
    clearInterval(memory);
    prober.postMessage('stop');
    const { latencies, failures } = await result;
    await prober.terminate();
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      probes: latencies.length,
      failures,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted[sorted.length - 1] ?? NaN,
      peakRss,
      peakParsers,
    };
  };
}

function multipartBody(files: { name: string; type: string; content: Buffer }[]) {
  const boundary = `----parleybench${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const file of files) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`,
      ),
      file.content,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

interface Scenario {
  name: string;
  files: { name: string; type: string; content: Buffer }[];
}

async function run(base: string, ready: Ready, pid: number, scenario: Scenario) {
  const headers = { authorization: `Bearer ${ready.token}` };
  const url = `${base}/api/bots/${ready.botId}/knowledge/imports`;
  const { body, contentType } = multipartBody(scenario.files);
  const baseline = rssOf(pid);
  const stop = probe(base, pid);
  const started = performance.now();
  let outcome: string;
  try {
    if (scenario.files.length === 0) {
      // The machine's own noise: /health with nothing else to do.
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      throw new Error('idle');
    }
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': contentType },
      body,
    });
    const answer = (await response.json()) as { id?: string; error?: string };
    if (response.status !== 202) outcome = `${response.status} ${answer.error ?? ''}`;
    else {
      outcome = 'no result within 10 minutes';
      for (let i = 0; i < 6000; i += 1) {
        const job = (await (await fetch(`${url}/${answer.id}`, { headers })).json()) as {
          status: string;
          documents: { error_code: string | null; status: string }[];
        };
        if (job.status === 'done' || job.status === 'failed') {
          const codes = new Map<string, number>();
          for (const d of job.documents) {
            const key = d.error_code ?? d.status;
            codes.set(key, (codes.get(key) ?? 0) + 1);
          }
          outcome = `202, import ${job.status}: ${[...codes].map(([k, n]) => `${n}× ${k}`).join(', ')}`;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    const message = (error as Error).message;
    outcome = message === 'idle' ? 'no import (10 s)' : `request failed: ${message}`;
  }
  const seconds = (performance.now() - started) / 1000;
  const figures = await stop();
  return {
    scenario: scenario.name,
    outcome,
    seconds: Math.round(seconds * 10) / 10,
    'health probes': figures.probes,
    'health failures': figures.failures,
    'health p50 ms': Math.round(figures.p50 * 10) / 10,
    'health p99 ms': Math.round(figures.p99 * 10) / 10,
    'health max ms': Math.round(figures.max * 10) / 10,
    'RSS before MB': Math.round(baseline),
    'RSS growth MB': Math.round(figures.peakRss - baseline),
    'parsers peak RSS MB': Math.round(figures.peakParsers),
    'load 1 min': loadAverage()[0],
  };
}

async function measure(name: string, env: Record<string, string>, scenarios: Scenario[]) {
  // BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=<dir>": a CPU profile of the service (npm run bench:profile).
  const { child, ready } = await startService<Ready>(SELF, { env });
  const base = `http://127.0.0.1:${ready.port}`;
  try {
    console.log(`\n${name}`);
    const rows = [];
    for (const scenario of scenarios) {
      if (ONLY && !ONLY.some((word) => scenario.name.includes(word))) continue;
      rows.push(await run(base, ready, child.pid!, scenario));
    }
    console.table(rows);
    return rows;
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

async function main(): Promise<void> {
  console.log('Generating the hostile documents …');
  const bomb = await zipBombDocx(500 * MB);
  const pdf = textPdf(Array.from({ length: 20_000 }, (_, i) => `Seite ${i + 1}`));
  const words = 'Fahrrad Werkstatt Reparatur Bremse Kette Sattel Lenker Pedal Schlauch Ventil ';
  const large = (i: number) => ({
    name: `gross-${i}.txt`,
    type: 'text/plain',
    content: Buffer.from(words.repeat(Math.ceil((9.5 * MB) / words.length)).slice(0, 9.5 * MB)),
  });
  const sentence =
    'Die Werkstatt repariert Fahrräder aller Art; Bremsen und Ketten werden sofort getauscht. ';
  const handbook = Array.from(
    { length: 300 },
    (_, i) => `## Kapitel ${i + 1}\n\n${`${sentence.repeat(10)}\n\n`.repeat(3)}`,
  ).join('\n');
  const normal = [
    { name: 'handbuch.md', type: 'text/markdown', content: Buffer.from(handbook) },
    {
      name: 'katalog.pdf',
      type: 'application/pdf',
      content: textPdf(Array.from({ length: 200 }, (_, i) => `Seite ${i + 1}: ${sentence.repeat(5)}`)),
    },
    {
      name: 'werkstatt.docx',
      type: 'application/octet-stream',
      content: readFileSync(new URL('../test/fixtures/knowledge/werkstatt.docx', import.meta.url)),
    },
  ];
  const scenarios: Scenario[] = [
    { name: 'baseline: /health alone', files: [] },
    {
      name: `zip bomb DOCX (${(bomb.length / MB).toFixed(1)} MB → 500 MB XML)`,
      files: [{ name: 'bombe.docx', type: 'application/octet-stream', content: bomb }],
    },
    {
      name: `PDF of 20,000 pages (${(pdf.length / MB).toFixed(1)} MB)`,
      files: [{ name: 'seiten.pdf', type: 'application/pdf', content: pdf }],
    },
    { name: 'ten files of 9.5 MB in one upload', files: Array.from({ length: 10 }, (_, i) => large(i)) },
    { name: 'five files of 9.5 MB in one upload', files: Array.from({ length: 5 }, (_, i) => large(i)) },
    { name: 'normal documents: Markdown, PDF, DOCX', files: normal },
  ];
  const load = loadAverage().join(' ');
  console.log(`Node ${process.version}, ${scenarios.length} scenarios per database; load average ${load}`);
  if (TARGETS.has('pglite')) {
    await withPgliteDir('parley-bench-imports', (dataDir) =>
      measure('PGlite', { PARLEY_DATA_DIR: dataDir, DATABASE_URL: '' }, scenarios),
    );
  }
  if (TARGETS.has('postgres')) {
    await withScratchPostgres(
      POSTGRES_URL,
      'parley_bench_imports',
      (url) => measure('PostgreSQL', { DATABASE_URL: url }, scenarios),
      { optional: true },
    );
  }
}

if (process.argv.includes('--serve')) await serve();
else await main();
