import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
/** Any fixed number: serialises migration runs of several instances starting at once. */
const MIGRATION_LOCK = 726_100_101;

export interface Migration {
  name: string;
  sql: string;
}

export async function loadMigrations(): Promise<Migration[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f)).sort();
  return Promise.all(
    files.map(async (name) => ({ name, sql: await readFile(MIGRATIONS_DIR + name, 'utf8') })),
  );
}

/** Applies every migration not yet applied, each in its own transaction. Returns the names applied. */
export async function migrate(db: Database): Promise<string[]> {
  const migrations = await loadMigrations();
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    name text PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const applied: string[] = [];
  for (const migration of migrations) {
    const done = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      const rows = await tx.query('SELECT 1 FROM schema_migrations WHERE name = $1', [migration.name]);
      if (rows.length > 0) return false;
      // Statements run one by one so the same script works on both engines inside a transaction.
      for (const statement of splitStatements(migration.sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [migration.name]);
      return true;
    });
    if (done) applied.push(migration.name);
  }
  return applied;
}

/**
 * Splits a migration script at semicolons that end a statement. Dollar-quoted bodies
 * ($$ … $$), quoted strings and comments are kept intact.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current = '';
  let i = 0;
  while (i < sql.length) {
    const rest = sql.slice(i);
    const dollar = /^\$[A-Za-z_]*\$/.exec(rest);
    if (dollar) {
      const tag = dollar[0];
      const end = sql.indexOf(tag, i + tag.length);
      const stop = end === -1 ? sql.length : end + tag.length;
      current += sql.slice(i, stop);
      i = stop;
    } else if (rest.startsWith('--')) {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
    } else if (sql[i] === "'") {
      const end = sql.indexOf("'", i + 1);
      const stop = end === -1 ? sql.length : end + 1;
      current += sql.slice(i, stop);
      i = stop;
    } else if (sql[i] === ';') {
      if (current.trim()) statements.push(current.trim());
      current = '';
      i += 1;
    } else {
      current += sql[i];
      i += 1;
    }
  }
  if (current.trim()) statements.push(current.trim());
  return statements;
}
