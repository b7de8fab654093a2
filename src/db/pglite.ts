import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { usesGenericPlan, type Database, type Queryable } from './database.js';

/*
 * PGlite runs in a worker thread of its own (src/db/pglite-worker.js): one owner of the data
 * directory, as before, but its WebAssembly work no longer blocks this thread's event loop.
 * This side only sends statements and receives rows. A transaction stays open in the worker
 * until its callback here settles; PGlite's lock keeps other statements waiting meanwhile, as
 * on one PostgreSQL connection.
 */

interface Reply {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: { message: string } & Record<string, unknown>;
}

type Request =
  | { op: 'query'; sql: string; params?: unknown[]; tx?: number; generic?: boolean }
  | { op: 'exec'; sql: string; tx?: number }
  | { op: 'begin' }
  | { op: 'end'; tx: number; commit: boolean }
  | { op: 'ping' | 'close' };

const run = promisify(execFile);

interface Modules {
  pglite: WebAssembly.Module;
  initdb: WebAssembly.Module;
}

interface WorkerData {
  postgresqlconf: string[];
  dataDir?: string;
  modules?: Modules;
}

export interface PgliteOptions {
  /**
   * PostgreSQL's buffer cache inside PGlite. PGlite touches all of it at start, so it is
   * resident memory from the first second (128 MB by PostgreSQL's default); pages beyond it
   * come from the operating system's file cache. 16 MB unless configured.
   */
  sharedBuffersMb?: number;
}

/** An error thrown in the worker, with its PostgreSQL fields (code, constraint, detail …). */
function rebuild(error: NonNullable<Reply['error']>): Error {
  const { message, name: _name, ...fields } = error;
  return Object.assign(new Error(message), fields);
}

/** The WebAssembly the first worker compiled, handed to every later one (tests open many databases). */
let compiled: Modules | undefined;

class PgliteWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private nextId = 1;
  private failure: Error | undefined;
  readonly ready: Promise<void>;

  constructor(workerData: WorkerData) {
    this.worker = new Worker(new URL('./pglite-worker.js', import.meta.url), { workerData });
    this.ready = new Promise((resolve, reject) => {
      this.worker.once('error', reject);
      const onMessage = (message: { ready?: boolean; modules?: Modules }) => {
        if (!message.ready) return;
        compiled ??= message.modules;
        this.worker.off('message', onMessage);
        this.worker.off('error', reject);
        this.worker.on('message', (reply: Reply) => this.settle(reply));
        this.idle();
        resolve();
      };
      this.worker.on('message', onMessage);
    });
    this.worker.on('error', (error) => this.stop(error));
    this.worker.on('exit', () => this.stop(new Error('The embedded database has stopped')));
  }

  /** Statements sent and not yet answered. */
  get waiting(): number {
    return this.pending.size;
  }

  call<T>(request: Request): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    if (this.pending.size === 0) this.worker.ref();
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, ...request });
    });
  }

  private settle(reply: Reply): void {
    const waiter = this.pending.get(reply.id);
    if (!waiter) return;
    this.pending.delete(reply.id);
    this.idle();
    if (reply.ok) waiter.resolve(reply.value);
    else waiter.reject(rebuild(reply.error ?? { message: 'embedded database error' }));
  }

  /** An idle worker does not keep the process alive; one with statements in flight does. */
  private idle(): void {
    if (this.pending.size === 0) this.worker.unref();
  }

  private stop(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.pending.values()) waiter.reject(this.failure);
    this.pending.clear();
  }

  async terminate(): Promise<void> {
    if (this.failure) return;
    await this.call({ op: 'close' }).catch(() => undefined);
    this.failure = new Error('The embedded database is closed');
    await this.worker.terminate();
  }
}

const workers = new WeakMap<Database, PgliteWorker>();

/** Rows as the worker sends them: one list of column names, then each row's values. */
interface Table {
  columns: string[];
  rows: unknown[][];
}

function objects<T>({ columns, rows }: Table): T[] {
  return rows.map((values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i++) row[columns[i]!] = values[i];
    return row as T;
  });
}

function queryable(worker: PgliteWorker, tx?: number): Queryable {
  return {
    async query<T>(sql: string, params?: readonly unknown[]) {
      const generic = usesGenericPlan(sql);
      const table = await worker.call<Table>({
        op: 'query',
        sql,
        params: params as unknown[] | undefined,
        tx,
        generic,
      });
      return objects<T>(table);
    },
  };
}

async function start(workerData: WorkerData) {
  const worker = new PgliteWorker({ ...workerData, modules: compiled });
  await worker.ready;
  const base = queryable(worker);
  const db: Database = {
    kind: 'pglite',
    query: base.query,
    async transaction(fn) {
      const tx = await worker.call<number>({ op: 'begin' });
      let result;
      try {
        result = await fn(queryable(worker, tx));
      } catch (error) {
        await worker.call({ op: 'end', tx, commit: false }).catch(() => undefined);
        throw error;
      }
      await worker.call({ op: 'end', tx, commit: true });
      return result;
    },
    async exec(sql) {
      await worker.call({ op: 'exec', sql });
    },
    waiting: () => worker.waiting,
    async ping() {
      // Answered by the worker between two statements, not behind the queue of waiting ones.
      await worker.call({ op: 'ping' });
    },
    close: () => worker.terminate(),
  };
  workers.set(db, worker);
  return { db };
}

/** Runs initdb for a new data directory in a process of its own (src/db/pglite-create.js). */
async function createDataDir(dataDir: string, postgresqlconf: string[]): Promise<void> {
  const script = fileURLToPath(new URL('./pglite-create.js', import.meta.url));
  try {
    await run(process.execPath, [script, dataDir, JSON.stringify(postgresqlconf)]);
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(
      `Could not create the embedded database in ${dataDir}: ${stderr?.trim() || String(error)}`,
    );
  }
}

/**
 * Opens PGlite in dataDir (persistent) or in memory when dataDir is undefined.
 *
 * A new data directory is created by a process of its own that ends right after: initdb grows
 * the WebAssembly memory of the thread that runs it to about 600 MB, and even after that thread
 * has ended the C library keeps about 100 MB of what it freed, while a thread that opens an
 * existing data directory needs about 60 MB. In a process, neither counts against the service
 * (its peak resident memory stays near what serving needs).
 */
export async function openPglite(dataDir?: string, options: PgliteOptions = {}): Promise<{ db: Database }> {
  const postgresqlconf = settings(options);
  if (dataDir !== undefined && !existsSync(join(dataDir, 'PG_VERSION'))) {
    await createDataDir(dataDir, postgresqlconf);
  }
  return start({ dataDir, postgresqlconf });
}

function settings(options: PgliteOptions): string[] {
  return [`shared_buffers = ${options.sharedBuffersMb ?? 16}MB`];
}
