import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import pg from 'pg';
import type { Database, Queryable } from './database.js';
import { OID, keepText, parseNumber } from './database.js';

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
const statementNames = new LRUCache<string, string>({ max: 5000 });
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

function runPrepared(client: pg.Pool | pg.PoolClient, sql: string, values: unknown[]) {
  return client.query({ name: statementName(sql), text: sql, values });
}

function wrap(client: pg.Pool | pg.PoolClient, inTransaction: boolean): Queryable {
  return {
    async query<T>(sql: string, params?: readonly unknown[]) {
      if (!params || params.length === 0) return (await client.query(sql)).rows as T[];
      const values = params as unknown[];
      try {
        return (await runPrepared(client, sql, values)).rows as T[];
      } catch (error) {
        if (!isStalePlan(error)) throw error;
        generation += 1;
        statementNames.clear();
        if (inTransaction) throw error;
        return (await runPrepared(client, sql, values)).rows as T[];
      }
    },
  };
}

export function openPostgres(connectionString: string, poolSize = 10): Database {
  // Connections are renewed every 15 minutes: the prepared statements a connection collects
  // (statements whose text varies with the fields a dashboard edit sets) cannot pile up.
  const pool = new pg.Pool({ connectionString, max: poolSize, maxLifetimeSeconds: 15 * 60 });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => undefined);
  const base = wrap(pool, false);
  return {
    kind: 'postgres',
    query: base.query,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(wrap(client, true));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async exec(sql) {
      await pool.query(sql);
    },
    async close() {
      await pool.end();
    },
  };
}
