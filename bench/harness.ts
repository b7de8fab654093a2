/**
 * What the benchmark scripts share: settings, a scratch PostgreSQL database or PGlite
 * directory, the service in a child process (it prints `READY <json>` when it listens), a
 * configured and migrated context with a tenant, bot and signed-in user, and the figures read
 * from /proc (resident set, CPU time, load average). The service's modules are imported when a
 * function needs them, so a parent that only drives a child does not load them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { AppContext } from '../src/shared/context.js';

/** `--name=value` arguments win over BENCH_NAME variables; undefined when neither is given. */
export function argument(name: string): string | undefined {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  if (arg) return arg.slice(name.length + 3);
  return process.env[`BENCH_${name.toUpperCase()}`];
}

/** A setting (see argument) with its default. */
export function setting(name: string, fallback: string): string {
  return argument(name) ?? fallback;
}

/** The local test server; scripts take another with --database_url or BENCH_DATABASE_URL. */
export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** The p-th percentile (nearest rank) of values; NaN for none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The load averages of 1, 5 and 15 minutes. */
export function loadAverage(): number[] {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
}

/** A line of /proc/<pid>/status, in MB (VmHWM: peak resident set, VmRSS: current); NaN when gone. */
export function memoryOf(pid: number, field: 'VmHWM' | 'VmRSS' = 'VmRSS'): number {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Kernel clock ticks per millisecond (USER_HZ is 100 on Linux). */
const CLOCK_TICKS_PER_MS = 100 / 1000;

/** CPU time (user + system, all threads) of processes, in milliseconds; ended ones count nothing. */
export function cpuMs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return ticks / CLOCK_TICKS_PER_MS;
}

/**
 * Runs fn on a scratch database created on the server of `serverUrl` and dropped afterwards
 * (also on failure) unless `keep`. A server that cannot be reached is said and skipped
 * (undefined) when `optional`; otherwise its error is thrown.
 */
export async function withScratchPostgres<T>(
  serverUrl: string,
  prefix: string,
  fn: (url: string) => Promise<T>,
  options: { optional?: boolean; keep?: boolean } = {},
): Promise<T | undefined> {
  const admin = new pg.Client({ connectionString: serverUrl });
  admin.on('error', () => undefined);
  try {
    await admin.connect();
  } catch (error) {
    if (!options.optional) throw error;
    console.log(`PostgreSQL not reachable at ${serverUrl} (${(error as Error).message}); skipped.`);
    return undefined;
  }
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  try {
    return await fn(url.toString());
  } finally {
    if (!options.keep) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

/** Runs fn with a fresh PGlite data directory, removed afterwards. */
export async function withPgliteDir<T>(prefix: string, fn: (dataDir: string) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  try {
    return await fn(dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Starts `script --serve …args` in a child process (with tsx) and waits for its READY line.
 * BENCH_NODE_ARGS passes flags to the child's node, e.g. "--cpu-prof --cpu-prof-dir=prof".
 * The child gets no Redis: one instance, in-memory rate-limit counters.
 */
export function startService<Ready>(
  script: string,
  options: { args?: string[]; env?: Record<string, string>; ipc?: boolean; name?: string } = {},
): Promise<{ child: ChildProcess; ready: Ready }> {
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(
    process.execPath,
    [...nodeArgs, '--import', 'tsx', script, '--serve', ...(options.args ?? [])],
    {
      env: { ...process.env, REDIS_URL: '', ...options.env },
      stdio: options.ipc ? ['ignore', 'pipe', 'inherit', 'ipc'] : ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const line = /READY (.*)\n/.exec(buffer);
      if (line) resolve({ child, ready: JSON.parse(line[1]!) as Ready });
    });
    child.once('exit', (code) => reject(new Error(`${options.name ?? 'service'} exited with ${code}`)));
  });
}

/** Said by the child when it listens: what the parent needs to drive it. */
export function announceReady(ready: object): void {
  process.stdout.write(`READY ${JSON.stringify(ready)}\n`);
}

/** The port a listening Fastify app got. */
export function portOf(app: { server: { address(): unknown } }): number {
  const address = app.server.address();
  return typeof address === 'object' && address ? (address as { port: number }).port : 0;
}

/**
 * A context for a benchmark: production mode, silent, the offline model, no demo data, cheap
 * password hashes, the environment's database settings unless `env` says otherwise; migrated.
 */
export async function benchContext(env: Record<string, string> = {}): Promise<AppContext> {
  const { loadConfig } = await import('../src/config.js');
  const { createContext } = await import('../src/context.js');
  const { migrate } = await import('../src/db/migrate.js');
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    MODEL_PROVIDER: 'offline',
    PARLEY_SEED_DEMO: 'false',
    BCRYPT_COST: '4',
    ...env,
  });
  const ctx = await createContext(config);
  await migrate(ctx.db);
  return ctx;
}

/** A tenant on the enterprise plan (no quota in the way) with one bot. */
export async function benchTenant(
  ctx: Pick<AppContext, 'db'>,
  bot: { name: string; system_prompt?: string } = { name: 'Bench bot' },
  tenantName = 'Bench',
) {
  const { createTenant } = await import('../src/modules/tenants/service.js');
  const { createBot } = await import('../src/modules/bots/editing.js');
  const { tenant } = await ctx.db.transaction((tx) =>
    createTenant(tx, { name: tenantName, plan: 'enterprise' }),
  );
  return { tenant, bot: await createBot(ctx.db, tenant.id, bot) };
}

/** A user of the tenant with the role, signed in for an hour: its id and session token. */
export async function benchSession(
  ctx: AppContext,
  tenantId: string,
  role: 'owner' | 'editor',
): Promise<{ userId: string; token: string }> {
  const { insertUser, insertSession } = await import('../src/modules/auth/repository.js');
  const { sha256Hex } = await import('../src/modules/auth/secrets.js');
  const user = await insertUser(ctx.db, tenantId, {
    email: `${role}@bench.test`,
    passwordHash: await ctx.sessions.hashPassword(randomBytes(12).toString('hex')),
    role,
    firstName: 'Bench',
    lastName: role === 'owner' ? 'Owner' : 'Editor',
  });
  const token = `pst_${randomBytes(32).toString('hex')}`;
  await insertSession(ctx.db, tenantId, {
    userId: user.id,
    tokenHash: sha256Hex(token),
    expiresAt: new Date(Date.now() + 3600_000),
  });
  return { userId: user.id, token };
}

/** The knowledge service's dependencies for seeding entries (no embeddings). */
export function knowledgeDeps(ctx: AppContext) {
  return {
    db: ctx.db,
    embeddings: null,
    maxEntryBytes: ctx.config.knowledge.maxEntryBytes,
    minScore: ctx.config.knowledge.minScore,
  };
}

/** Backends serving the scratch database (their CPU is PostgreSQL's share of the work). */
export async function postgresBackends(url: string | undefined): Promise<number[]> {
  if (!url) return [];
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return rows.map((r) => r.pid);
  } finally {
    await client.end();
  }
}
