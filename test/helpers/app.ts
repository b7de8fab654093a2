import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import type { AppContext } from '../../src/shared/context.js';
import { memoryCoordination, redisCoordination, type Coordination } from '../../src/coordination/index.js';
import type { Database } from '../../src/db/database.js';
import { postgresCoordination } from '../../src/coordination/postgres.js';
import { BACKENDS, openTestDatabase, type Backend, type TestDatabase } from './db.js';
import { collectingLogs, testLogStream } from './log-sink.js';

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  db: Database;
  backend: Backend;
  database: TestDatabase;
}

export interface TestAppOptions {
  /** Environment overrides for the configuration (e.g. MODEL_PROVIDER). */
  env?: Record<string, string>;
  /** Share counters and broadcasts through the Redis of REDIS_URL instead of process memory. */
  redis?: boolean;
  /** Broadcasts over LISTEN/NOTIFY of the PostgreSQL test database (as without Redis in production). */
  postgresBroadcast?: boolean;
  /** Where the app logs; by default the test-wide log sink when it is enabled. */
  logStream?: { write(line: string): void };
}

/** Builds an app instance on an existing test database (a second instance shares it). */
export async function startApp(database: TestDatabase, options: TestAppOptions = {}): Promise<TestApp> {
  const logStream = options.logStream ?? testLogStream();
  // Collected logs are written at debug level, so the secret scan sees everything.
  const logLevel = collectingLogs && !options.logStream ? { LOG_LEVEL: 'debug' } : {};
  const config = testConfig({ ...logLevel, ...options.env });
  let coordination: Coordination = memoryCoordination();
  if (options.redis) {
    const url = process.env.REDIS_URL;
    if (!url) throw new Error('REDIS_URL is not set');
    coordination = await redisCoordination(url);
  }
  if (options.postgresBroadcast) {
    if (!database.url) throw new Error('postgresBroadcast needs the PostgreSQL backend');
    coordination = postgresCoordination(database.url, {
      notify: (sql, params) => database.db.query(sql, params),
    });
    const listening = coordination;
    await vi.waitUntil(() => listening.broadcastsArrive?.() === true, { timeout: 10_000, interval: 20 });
  }
  const ctx = await createContext(config, { db: database.db, coordination });
  const app = await buildApp(ctx, { logStream });
  await app.ready();
  return { app, ctx, db: database.db, backend: database.backend, database };
}

/** Closes the app and its coordination, leaving the shared database open. */
export async function stopApp(testApp: TestApp): Promise<void> {
  await testApp.app.close();
  await testApp.ctx.coordination.close();
}

/**
 * Declares the suite once per backend with an app on a fresh database; `get()` returns it.
 */
export function describeApp(
  name: string,
  body: (get: () => TestApp) => void,
  options: TestAppOptions = {},
): void {
  for (const backend of BACKENDS) {
    describe(`[${backend}] ${name}`, () => {
      let current: TestApp | undefined;
      beforeAll(async () => {
        const database = await openTestDatabase(backend);
        current = await startApp(database, options);
      });
      afterAll(async () => {
        if (!current) return;
        await stopApp(current);
        await current.database.close();
      });
      body(() => {
        if (!current) throw new Error('test app not started yet');
        return current;
      });
    });
  }
}
