import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { openPglite } from '../../src/db/pglite.js';
import { openPostgres } from '../../src/db/postgres.js';

export type Backend = 'pglite' | 'postgres';

/** PGlite always; PostgreSQL when TEST_DATABASE_URL is set. */
export const BACKENDS: Backend[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

/** A copy of the run's migrated PGlite data directory (test/global-setup.ts), beside it. */
async function copyOfTemplate(): Promise<{ db: Database; remove(): void }> {
  const template = inject('pgliteTemplate');
  const dir = mkdtempSync(join(dirname(template), 'db-'));
  cpSync(template, dir, { recursive: true });
  const { db } = await openPglite(dir);
  return { db, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TestDatabase {
  db: Database;
  backend: Backend;
  /** Connection string of the PostgreSQL test database (for a second app instance). */
  url?: string;
  close(): Promise<void>;
}

/** A fresh, migrated database of its own: a copy of the migrated PGlite, or a PostgreSQL database from the template. */
export async function openTestDatabase(backend: Backend): Promise<TestDatabase> {
  if (backend === 'pglite') {
    const { db, remove } = await copyOfTemplate();
    return {
      db,
      backend,
      async close() {
        await db.close();
        remove();
      },
    };
  }
  const template = inject('pgTemplate');
  const base = process.env.TEST_DATABASE_URL;
  if (!template || !base) throw new Error('PostgreSQL test database not prepared');
  const name = `parley_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  const db = openPostgres(url.toString(), 20);
  return {
    db,
    backend,
    url: url.toString(),
    async close() {
      await db.close();
      const cleanup = new pg.Client({ connectionString: base });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

/**
 * Declares the suite once per backend, named `[pglite] …` and `[postgres] …`, each with a
 * database of its own. `get()` returns it inside tests and hooks.
 */
export function describeEachBackend(name: string, body: (get: () => TestDatabase) => void): void {
  for (const backend of BACKENDS) {
    describe(`[${backend}] ${name}`, () => {
      let current: TestDatabase | undefined;
      beforeAll(async () => {
        current = await openTestDatabase(backend);
      });
      afterAll(async () => {
        await current?.close();
      });
      body(() => {
        if (!current) throw new Error('test database not open yet');
        return current;
      });
    });
  }
}
