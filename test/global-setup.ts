import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openPglite } from '../src/db/pglite.js';
import { openPostgres } from '../src/db/postgres.js';
import { migrate } from '../src/db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgTemplate: string | null;
    pgliteTemplate: string;
  }
}

/**
 * One migrated PGlite data directory for the whole run, in memory-backed /dev/shm where there is
 * one: every PGlite test database is a copy of it (test/helpers/db.ts), opened in well under a
 * second instead of running initdb and the migrations in each test file.
 */
async function pgliteTemplate(): Promise<{ dir: string; remove(): void }> {
  const root = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'parley-pglite-'));
  const dir = join(root, 'template');
  const { db } = await openPglite(dir);
  await migrate(db);
  await db.close();
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** With TEST_DATABASE_URL, its server must answer: the PostgreSQL tests are never skipped silently. */
export default async function setup(project: TestProject) {
  const pglite = await pgliteTemplate();
  project.provide('pgliteTemplate', pglite.dir);
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    project.provide('pgTemplate', null);
    return () => pglite.remove();
  }
  const admin = new pg.Client({ connectionString: url });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(`TEST_DATABASE_URL is set but PostgreSQL cannot be reached: ${(error as Error).message}`);
  }
  const template = `parley_tpl_${process.pid}_${Date.now().toString(36)}`;
  await admin.query(`CREATE DATABASE ${template}`);
  const templateUrl = new URL(url);
  templateUrl.pathname = `/${template}`;
  const db = openPostgres(templateUrl.toString(), 2);
  await migrate(db);
  await db.close();
  project.provide('pgTemplate', template);
  return async () => {
    pglite.remove();
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await admin.end();
  };
}
