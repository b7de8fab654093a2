import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import pg from 'pg';
import type { Database, Queryable } from './database.js';
import { OID, keepText, parseNumber, usesGenericPlan } from './database.js';
import { isDatabaseUnavailable } from './errors.js';

pg.types.setTypeParser(OID.int8, parseNumber);
pg.types.setTypeParser(OID.numeric, parseNumber);
pg.types.setTypeParser(OID.date, keepText);

/*
 * Every statement with parameters runs as a named prepared statement: each pooled connection
 * parses and plans it once, then PostgreSQL reuses the plan (custom or generic, its choice).
 * On the chat path this saves most of the server's CPU, which planning the knowledge search
 * and the exchange statement otherwise takes on every request. The name is derived from the
 * text, so one statement has one name on every connection. Statements without parameters
 * (scripts of several statements, BEGIN/COMMIT) keep the simple protocol.
 *
 * A migration that changes a table's columns while statements reading `*` from it are
 * prepared makes PostgreSQL refuse them ("cached plan must not change result type"). Then the
 * generation in the names grows, so every connection prepares the statements anew, and a
 * statement outside a transaction is retried once (inside one, the transaction has failed
 * and its caller sees the error; the next attempt prepares afresh).
 */
const statementNames = new LRUCache<string, string>({
  // Bounded by bytes (the keys are statement texts): about 4 MB.
  maxSize: 4 * 1024 * 1024,
  sizeCalculation: (name, sql) => 2 * (sql.length + name.length) + 64,
});
let generation = 0;

function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (name === undefined) {
    name = `parley${generation}_${createHash('sha1').update(sql).digest('base64url')}`;
    statementNames.set(sql, name);
  }
  return name;
}

function isStalePlan(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error as { code?: string }).code === '0A000' &&
    error.message.includes('cached plan must not change result type')
  );
}

function runPrepared(client: pg.PoolClient, sql: string, values: unknown[]) {
  return client.query({ name: statementName(sql), text: sql, values });
}

/*
 * plan_cache_mode is a setting of the session, so each connection remembers what it was last
 * set to, and a statement that needs the other mode sets it first (a round trip only when a
 * connection switches between the chat's statements and others). Statements marked by
 * genericPlan run with force_generic_plan, all others with PostgreSQL's default (auto). A SET
 * inside a transaction that is rolled back is undone, so after a rollback the mode is unknown.
 */
type PlanMode = 'auto' | 'force_generic_plan';
const planModes = new WeakMap<pg.PoolClient, PlanMode>();

async function usePlanMode(client: pg.PoolClient, sql: string): Promise<void> {
  const mode: PlanMode = usesGenericPlan(sql) ? 'force_generic_plan' : 'auto';
  if (planModes.get(client) === mode) return;
  await client.query(`SET plan_cache_mode = ${mode}`);
  planModes.set(client, mode);
}

async function queryPrepared<T>(
  client: pg.PoolClient,
  sql: string,
  params: readonly unknown[],
  inTransaction: boolean,
): Promise<T[]> {
  const values = params as unknown[];
  await usePlanMode(client, sql);
  try {
    return (await runPrepared(client, sql, values)).rows as T[];
  } catch (error) {
    if (!isStalePlan(error)) throw error;
    generation += 1;
    statementNames.clear();
    if (inTransaction) throw error;
    return (await runPrepared(client, sql, values)).rows as T[];
  }
}

/*
 * A connection taken from the pool has no listener for its 'error' event (the pool listens only
 * while it is idle), so PostgreSQL ending it (a restart: "terminating connection due to
 * administrator command") or a broken socket while it is out would be an uncaught exception
 * that ends the process. While it is out, such an error marks it broken instead, and it is
 * discarded when it is released, as pool.query does for its own connections.
 */
function watchConnection(client: pg.PoolClient): { broken: Error | undefined; release(): void } {
  const watch = {
    broken: undefined as Error | undefined,
    release() {
      client.off('error', onError);
      client.release(watch.broken);
    },
  };
  const onError = (error: Error) => {
    watch.broken ??= error;
  };
  client.on('error', onError);
  return watch;
}

/** Statements of the pool: each on a connection of its own, returned to the pool after. */
function pooled(pool: pg.Pool): Queryable {
  return {
    async query<T>(sql: string, params?: readonly unknown[]) {
      if (!params || params.length === 0) return (await pool.query(sql)).rows as T[];
      const client = await pool.connect();
      const watch = watchConnection(client);
      try {
        return await queryPrepared<T>(client, sql, params, false);
      } catch (error) {
        // As pool.query does for every error: a connection that failed other than by an error
        // PostgreSQL reported (a timeout, a lost connection) is discarded.
        if (!(error instanceof pg.DatabaseError)) watch.broken ??= error as Error;
        throw error;
      } finally {
        watch.release();
      }
    },
  };
}

/** Statements of one transaction's connection. */
function inTransaction(client: pg.PoolClient): Queryable {
  return {
    async query<T>(sql: string, params?: readonly unknown[]) {
      if (!params || params.length === 0) return (await client.query(sql)).rows as T[];
      return queryPrepared<T>(client, sql, params, true);
    },
  };
}

export interface PostgresOptions {
  /** Longest wait for a connection (new, or free in the pool). */
  connectTimeoutMs?: number;
  /** Longest statement: PostgreSQL cancels it (statement_timeout), the client gives up a second later. */
  statementTimeoutMs?: number;
  /** Told when a statement fails because the server cannot be reached, and when one succeeds. */
  availability?: {
    markDown(reason: unknown): void;
    markUp(startedIn?: number): void;
    readonly outages: number;
  };
}

/** The client-side limit past the server's statement_timeout: a frozen server never answers. */
const CLIENT_TIMEOUT_MARGIN_MS = 1000;

export function openPostgres(
  connectionString: string,
  poolSize = 10,
  options: PostgresOptions = {},
): Database {
  const { connectTimeoutMs = 5000, statementTimeoutMs = 15000, availability } = options;
  // Connections are renewed every 15 minutes: the prepared statements a connection collects
  // (statements whose text varies with the fields a dashboard edit sets) cannot pile up.
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    maxLifetimeSeconds: 15 * 60,
    connectionTimeoutMillis: connectTimeoutMs,
    statement_timeout: statementTimeoutMs,
    query_timeout: statementTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
    keepAlive: true,
  });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', (error) => {
    if (isDatabaseUnavailable(error)) availability?.markDown(error);
  });
  /** Notes the outage (or its end) and passes the result or the error on. */
  const observe = async <T>(run: () => Promise<T>): Promise<T> => {
    const startedIn = availability?.outages;
    try {
      const result = await run();
      availability?.markUp(startedIn);
      return result;
    } catch (error) {
      if (isDatabaseUnavailable(error)) availability?.markDown(error);
      throw error;
    }
  };
  const base = pooled(pool);
  // Readiness checks use a connection of their own, so they never wait behind chat traffic.
  let probe: pg.Pool | undefined;
  return {
    kind: 'postgres',
    query: (sql, params) => observe(() => base.query(sql, params)),
    transaction: (fn) =>
      observe(async () => {
        const client = await pool.connect();
        const watch = watchConnection(client);
        try {
          await client.query('BEGIN');
          const result = await fn(inTransaction(client));
          await client.query('COMMIT');
          return result;
        } catch (error) {
          planModes.delete(client);
          await client.query('ROLLBACK').catch((rollbackError: Error) => {
            watch.broken ??= rollbackError;
          });
          throw error;
        } finally {
          // A connection that failed its rollback is discarded, not handed to the next request.
          watch.release();
        }
      }),
    exec: (sql) =>
      observe(async () => {
        await pool.query(sql);
      }),
    waiting: () => pool.waitingCount,
    async ping() {
      if (!probe) {
        probe = new pg.Pool({
          connectionString,
          max: 1,
          idleTimeoutMillis: 60_000,
          connectionTimeoutMillis: connectTimeoutMs,
          query_timeout: statementTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
        });
        probe.on('error', () => undefined);
      }
      await probe.query('SELECT 1');
    },
    async close() {
      await Promise.all([pool.end(), probe?.end()]);
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}
