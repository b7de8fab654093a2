import pg from 'pg';
import type { Database, Queryable } from './database.js';
import { OID, keepText, parseNumber } from './database.js';

pg.types.setTypeParser(OID.int8, parseNumber);
pg.types.setTypeParser(OID.numeric, parseNumber);
pg.types.setTypeParser(OID.date, keepText);

function wrap(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<T>(sql: string, params?: readonly unknown[]) {
      const result = await client.query(sql, params as unknown[] | undefined);
      return result.rows as T[];
    },
  };
}

export function openPostgres(connectionString: string, poolSize = 10): Database {
  const pool = new pg.Pool({ connectionString, max: poolSize });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => undefined);
  const base = wrap(pool);
  return {
    kind: 'postgres',
    query: base.query,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(wrap(client));
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
