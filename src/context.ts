import { mkdirSync } from 'node:fs';
import type { Config } from './config.js';
import { memoryCoordination, redisCoordination, type Coordination } from './coordination/index.js';
import { postgresCoordination } from './coordination/postgres.js';
import type { Database } from './db/database.js';
import { openPostgres } from './db/postgres.js';
import { acquireDataDirLock } from './db/lock.js';
import { Health } from './health.js';
import { ApiKeyService } from './modules/auth/api-keys.js';
import { SessionService } from './modules/auth/sessions.js';
import type { ChatExtension } from './modules/chat/extensions.js';
import { eventBookingExtension } from './modules/events/chat-extension.js';
import { createModelProvider, type ModelProvider } from './modules/models/index.js';
import { tracingFor, type TracingHandle } from './observability/tracing.js';

/**
 * Everything a module needs, built once per process and handed to every module plugin.
 * Tests build one per storage backend.
 */
export interface AppContext {
  config: Config;
  db: Database;
  coordination: Coordination;
  apiKeys: ApiKeyService;
  sessions: SessionService;
  /** The AI model (deployment provider with per-bot override); tests may replace it. */
  model: ModelProvider;
  /** Modules that add prompt sections or post-process chat replies (see chat/extensions.ts). */
  chatExtensions: ChatExtension[];
  /** Whether the database and Redis answer (for /ready, 503 answers and outage logs). */
  health: Health;
  /** OpenTelemetry tracing of the chat; null unless an OTLP endpoint is configured. */
  tracing: TracingHandle | null;
  /** Closes what the context opened, in reverse order. */
  close(): Promise<void>;
}

export async function openDatabase(
  config: Config,
  health?: Health,
): Promise<{ db: Database; release: () => void }> {
  if (config.databaseUrl) {
    const db = openPostgres(config.databaseUrl, config.databasePoolSize, {
      connectTimeoutMs: config.databaseConnectTimeoutMs,
      statementTimeoutMs: config.databaseStatementTimeoutMs,
      availability: health?.database,
    });
    return { db, release: () => undefined };
  }
  mkdirSync(config.dataDir, { recursive: true });
  const release = acquireDataDirLock(config.dataDir);
  try {
    // Loaded only here: a deployment on PostgreSQL never holds PGlite's WebAssembly in memory.
    const { openPglite } = await import('./db/pglite.js');
    const { db } = await openPglite(config.dataDir, { sharedBuffersMb: config.pgliteSharedBuffersMb });
    return { db, release };
  } catch (error) {
    release();
    throw error;
  }
}

export async function createContext(
  config: Config,
  opened?: { db: Database; release?: () => void; coordination?: Coordination },
): Promise<AppContext> {
  // The probe runs only once the database is open (while it is down).
  const health: Health = new Health((): Promise<unknown> => db.query('SELECT 1'));
  const { db, release } = opened ?? (await openDatabase(config, health));
  const coordination =
    opened?.coordination ??
    (config.redisUrl
      ? await redisCoordination(config.redisUrl, {
          commandTimeoutMs: config.redisCommandTimeoutMs,
          availability: health.trackRedis(),
        })
      : config.databaseUrl
        ? postgresCoordination(config.databaseUrl, { notify: (sql, params) => db.query(sql, params) })
        : memoryCoordination());
  const apiKeys = new ApiKeyService(db, coordination, {
    bcryptCost: config.auth.bcryptCost,
    cacheTtlSeconds: config.auth.apiKeyCacheTtlSeconds,
    cacheMax: config.auth.apiKeyCacheMax,
  });
  await apiKeys.start();
  const sessions = new SessionService(db, coordination, config.auth);
  const tracing = tracingFor(config);
  return {
    config,
    db,
    coordination,
    apiKeys,
    sessions,
    model: createModelProvider(config.model),
    chatExtensions: [eventBookingExtension()],
    health,
    tracing,
    async close() {
      // Spans of the requests that finished are sent before anything else stops.
      await tracing?.shutdown();
      health.stop();
      await coordination.close();
      await db.close();
      release?.();
    },
  };
}
