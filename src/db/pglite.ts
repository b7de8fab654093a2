import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { Database, Queryable } from './database.js';
import { OID, keepText, parseNumber } from './database.js';

const parsers = { [OID.int8]: parseNumber, [OID.numeric]: parseNumber, [OID.date]: keepText };

function wrap(pglite: Pick<PGlite, 'query'>): Queryable {
  return {
    async query<T>(sql: string, params?: readonly unknown[]) {
      const result = await pglite.query<T>(sql, params as unknown[] | undefined);
      return result.rows;
    },
  };
}

export function wrapPglite(pglite: PGlite): Database {
  const base = wrap(pglite);
  return {
    kind: 'pglite',
    query: base.query,
    transaction: (fn) => pglite.transaction((tx) => fn(wrap(tx))),
    async exec(sql) {
      await pglite.exec(sql);
    },
    async close() {
      if (!pglite.closed) await pglite.close();
    },
  };
}

/** Opens PGlite in dataDir (persistent) or in memory when dataDir is undefined. */
export async function openPglite(dataDir?: string): Promise<{ db: Database; pglite: PGlite }> {
  const pglite = await PGlite.create({ dataDir, extensions: { pg_trgm }, parsers });
  return { db: wrapPglite(pglite), pglite };
}

/** A copy of an open in-memory database, used by tests to skip re-running migrations. */
export async function clonePglite(source: PGlite): Promise<{ db: Database; pglite: PGlite }> {
  const pglite = (await source.clone()) as PGlite;
  // clone() does not carry the source's type parsers over.
  Object.assign(pglite.parsers, parsers);
  return { db: wrapPglite(pglite), pglite };
}
