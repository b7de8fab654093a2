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
import type { ChannelGuards } from './modules/chat/pipeline/guards.js';
import type { ChannelDeliveries, ChannelDelivery } from './modules/chat/pipeline/types.js';
import { eventBookingExtension } from './modules/events/chat-extension.js';
import { createEmbeddings } from './modules/knowledge/embeddings.js';
import { emailLoopGuard } from './modules/mailboxes/connectors/loop-guard.js';
import { personMailDelivery } from './modules/mailboxes/connectors/sender.js';
import { optOutGuard } from './modules/messaging/guards.js';
import { personDelivery as messagingDelivery } from './modules/messaging/outbound.js';
import { createModelProvider } from './modules/models/index.js';
import { enqueueConversationMessage } from './modules/webhooks/outbox.js';
import { widgetDelivery } from './modules/widget/events.js';
import { widgetBudgetGuard } from './modules/widget/limits.js';
import { tracingFor } from './observability/tracing.js';
import type { AppContext } from './shared/context.js';

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

/**
 * Per channel kind, the delivery of a person's reply from the inbox: the channel's own sender
 * where it has one (the bot's replies on it leave the same way), else the API's
 * `conversation.message` event for the tenant's system. A new channel kind adds its line here.
 */
export function channelDeliveries(config: Config): ChannelDeliveries {
  const api: ChannelDelivery = { enqueue: enqueueConversationMessage };
  return {
    api,
    webhook: api,
    test: api,
    voice: api,
    widget: widgetDelivery,
    email: personMailDelivery({ config }, api),
    whatsapp: messagingDelivery,
    sms: messagingDelivery,
  };
}

/** The channel guards by the name the registry's descriptors give them (chat/pipeline/guards.ts). */
export const CHANNEL_GUARDS: ChannelGuards = {
  email_loop: emailLoopGuard,
  widget_budget: widgetBudgetGuard,
  messaging_opt_out: optOutGuard,
};

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
    embeddings: createEmbeddings(config),
    chatExtensions: [eventBookingExtension()],
    deliveries: channelDeliveries(config),
    guards: CHANNEL_GUARDS,
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
