// The embedded database's own thread: PGlite (PostgreSQL compiled to WebAssembly) runs here,
// so its work never blocks the event loop that parses requests, answers health checks and
// forwards model streams. The main thread (src/db/pglite.ts) sends statements and receives
// rows; nothing else crosses the boundary. Plain JavaScript, so the thread starts under any
// loader (tsx, vitest, node) without compiling TypeScript.
import { Buffer } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

// The type parsers of src/db/database.ts (bigint and numeric as numbers, date as text).
const parsers = { 20: Number, 1700: Number, 1082: (value) => value };

/**
 * @type {{ dataDir?: string, postgresqlconf: string[],
 *   modules?: { pglite: WebAssembly.Module, initdb: WebAssembly.Module } }}
 */
const options = workerData;

// The compiled WebAssembly modules are handed back to the main thread, so the next database
// this process opens (tests open many) starts without compiling them again.
const dist = new URL('.', import.meta.resolve('@electric-sql/pglite'));
const compile = async (file) => WebAssembly.compile(await readFile(new URL(file, dist)));
const modules = options.modules ?? {
  pglite: await compile('pglite.wasm'),
  initdb: await compile('initdb.wasm'),
};

const pglite = await PGlite.create({
  pgliteWasmModule: modules.pglite,
  initdbWasmModule: modules.initdb,
  dataDir: options.dataDir,
  extensions: { pg_trgm },
  parsers,
  postgresqlconf: options.postgresqlconf,
});

/** Open transactions: id → { tx, end(commit), done }. */
const transactions = new Map();
let nextTransaction = 1;
const ROLLBACK = new Error('rollback');

/** An error's message and the PostgreSQL fields callers look at (code, constraint, detail …). */
function serialise(error) {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields = { message: error.message, name: error.name };
  for (const [key, value] of Object.entries(error)) {
    if (value === undefined || typeof value === 'function' || typeof value === 'object') continue;
    fields[key] = value;
  }
  return fields;
}

/*
 * Statements marked for a generic plan (src/db/database.ts) run prepared: PREPARE once, then
 * EXECUTE with the parameters as literals, under plan_cache_mode force_generic_plan. PGlite's
 * own query() parses and plans every statement anew (an unnamed statement), which cost the
 * chat's knowledge search more than running it. The setting is set and reset around the
 * EXECUTE in one script of the simple protocol (two calls into PostgreSQL instead of the six of
 * query()), so no other statement ever runs under it, and a failed script undoes it.
 */
const prepared = new Map();
let nextStatement = 1;

/** A value as PostgreSQL's text form, as node-postgres and PGlite send parameters. */
function text(value) {
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`;
  if (Array.isArray(value)) return arrayLiteral(value);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function arrayLiteral(values) {
  const elements = values.map((value) => {
    if (value === null || value === undefined) return 'NULL';
    if (Array.isArray(value)) return arrayLiteral(value);
    return `"${text(value).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  });
  return `{${elements.join(',')}}`;
}

/** A parameter as a literal of unknown type: PostgreSQL converts it to the parameter's type. */
function literal(value) {
  if (value === null || value === undefined) return 'NULL';
  return `'${text(value).replace(/'/g, "''")}'`;
}

function isStalePlan(error) {
  return error?.code === '0A000' && String(error.message).includes('cached plan must not change result type');
}

async function runGeneric(db, sql, params, inTransaction) {
  let name = prepared.get(sql);
  if (name === undefined) {
    name = `parley_${nextStatement++}`;
    await db.exec(`PREPARE ${name} AS ${sql}`);
    prepared.set(sql, name);
  }
  const execute = `EXECUTE ${name}(${params.map(literal).join(', ')})`;
  try {
    const results = await db.exec(
      `SET plan_cache_mode = force_generic_plan; ${execute}; RESET plan_cache_mode`,
      ARRAYS,
    );
    return table(results[1]);
  } catch (error) {
    if (!isStalePlan(error)) throw error;
    // A migration changed a table the statement reads: prepare it anew (outside a transaction,
    // at once; inside one, the transaction has failed and the next attempt prepares afresh).
    prepared.delete(sql);
    if (inTransaction) throw error;
    await db.exec(`DEALLOCATE ${name}`);
    return runGeneric(db, sql, params, inTransaction);
  }
}

/*
 * Rows cross to the main thread as arrays beside one list of column names: copying an object
 * per row with every column's name again cost this thread (the one PGlite works in) about a
 * seventh of its time under load. The main thread makes the objects (src/db/pglite.ts).
 */
const ARRAYS = { rowMode: 'array' };

function table(result) {
  return { columns: result?.fields.map((field) => field.name) ?? [], rows: result?.rows ?? [] };
}

async function query(db, message) {
  if (message.generic && message.params?.length) {
    return runGeneric(db, message.sql, message.params, message.tx !== undefined);
  }
  return table(await db.query(message.sql, message.params, ARRAYS));
}

function target(tx) {
  if (tx === undefined) return pglite;
  const open = transactions.get(tx);
  if (!open?.tx) throw new Error('transaction is not open');
  return open.tx;
}

/**
 * Starts a transaction and keeps it open until the main thread sends 'end'. PGlite holds its
 * lock meanwhile, so other statements wait, as on one PostgreSQL connection. The answer to
 * 'begin' (the transaction's id) is sent once the transaction runs.
 */
function begin(id) {
  const txId = nextTransaction++;
  const entry = { tx: undefined, end: undefined, done: undefined };
  entry.done = pglite
    .transaction(
      (tx) =>
        new Promise((resolve, reject) => {
          entry.tx = tx;
          entry.end = (commit) => (commit ? resolve() : reject(ROLLBACK));
          parentPort.postMessage({ id, ok: true, value: txId });
        }),
    )
    .finally(() => transactions.delete(txId));
  transactions.set(txId, entry);
  entry.done.catch((error) => {
    // Failed before it started: the 'begin' is still unanswered.
    if (!entry.end) parentPort.postMessage({ id, ok: false, error: serialise(error) });
  });
}

async function handle(message) {
  switch (message.op) {
    case 'query':
      return query(target(message.tx), message);
    case 'exec':
      await target(message.tx).exec(message.sql);
      return undefined;
    case 'end': {
      const open = transactions.get(message.tx);
      if (!open?.end) throw new Error('transaction is not open');
      open.end(message.commit);
      try {
        await open.done;
      } catch (error) {
        if (error !== ROLLBACK) throw error;
      }
      return undefined;
    }
    case 'ping':
      return pglite.closed ? 'closed' : 'ok';
    case 'close':
      if (!pglite.closed) await pglite.close();
      return undefined;
    default:
      throw new Error(`unknown operation ${message.op}`);
  }
}

parentPort.on('message', (message) => {
  if (message.op === 'begin') return begin(message.id);
  handle(message).then(
    (value) => {
      parentPort.postMessage({ id: message.id, ok: true, value });
      if (message.op === 'close') parentPort.close();
    },
    (error) => parentPort.postMessage({ id: message.id, ok: false, error: serialise(error) }),
  );
});

parentPort.postMessage({ ready: true, modules });
