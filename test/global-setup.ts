import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openPostgres } from '../src/db/postgres.js';
import { migrate } from '../src/db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgTemplate: string | null;
  }
}

/** With TEST_DATABASE_URL, its server must answer: the PostgreSQL tests are never skipped silently. */
export default async function setup(project: TestProject) {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    project.provide('pgTemplate', null);
    return;
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
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await admin.end();
  };
}
