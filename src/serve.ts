import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { createContext } from './context.js';
import type { AppContext } from './shared/context.js';
import { isDatabaseUnavailable } from './db/errors.js';
import { migrate } from './db/migrate.js';
import { describeDemo, isEmpty, seedDemo } from './demo.js';
import { resealMailboxSecrets } from './modules/mailboxes/index.js';
import { resealConnectionSecrets } from './modules/messaging/index.js';
import { resealSigningSecrets } from './modules/webhooks/index.js';
import { rowSecretsFor } from './shared/sealed.js';
import { SecretKeyError } from './shared/secrets.js';

/** While shutting down: how often connections that finished their request are closed. */
const IDLE_CLOSE_INTERVAL_MS = 100;
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 5000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Tenant secrets sealed before they were bound to their row (mailboxes, channel connections,
 * webhook signing secrets), or under a key other than PARLEY_SECRET_KEY's first, are re-sealed
 * once after the migrations (a SQL migration cannot decrypt). Without a key nothing can be
 * opened: reported.
 */
async function resealSecrets(ctx: AppContext, app: FastifyInstance): Promise<void> {
  const secrets = rowSecretsFor(ctx.config);
  const tables = {
    mailboxes: () => resealMailboxSecrets(ctx.db, secrets),
    channel_connections: () => resealConnectionSecrets(ctx.db, secrets),
    webhook_endpoints: () => resealSigningSecrets(ctx.db, secrets, ctx.config.webhooks.secretsKey),
  };
  for (const [table, reseal] of Object.entries(tables)) {
    try {
      const { resealed, failed } = await reseal();
      if (resealed > 0) app.log.info({ table, rows: resealed }, 'secrets re-sealed, bound to their rows');
      if (failed.length > 0)
        app.log.warn({ table, rows: failed }, 'secrets that do not open with the configured keys');
    } catch (error) {
      if (!(error instanceof SecretKeyError)) throw error;
      app.log.warn({ table }, 'secrets not re-sealed: PARLEY_SECRET_KEY is not configured');
    }
  }
}

/**
 * Brings the schema up to date and seeds the demo on an empty database. Returns false when
 * the database cannot be reached (it is tried again later); any other failure is fatal.
 */
async function prepareDatabase(ctx: AppContext, app: FastifyInstance): Promise<boolean> {
  try {
    const applied = await migrate(ctx.db);
    if (applied.length > 0) app.log.info({ migrations: applied }, 'migrations applied');
    await resealSecrets(ctx, app);
    if (ctx.config.seedDemo && (await isEmpty(ctx))) {
      const seed = await seedDemo(ctx);
      console.log(describeDemo(seed, ctx.config.publicBaseUrl));
    }
    ctx.health.schemaReady = true;
    return true;
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    ctx.health.database.markDown(error);
    return false;
  }
}

/**
 * `parley serve`: the HTTP service with its background tasks, started whether or not the
 * database and Redis are there yet, and stopped within SHUTDOWN_GRACE_MS on SIGTERM/SIGINT.
 *
 * Start: the schema is migrated (and the demo seeded) before listening when the database
 * answers; when it cannot be reached (down, or frozen past DATABASE_CONNECT_TIMEOUT_MS), the
 * service listens anyway — /health 200, /ready 503 naming what is missing, API requests 503
 * with Retry-After — and keeps trying in the background, so it recovers by itself. Redis is
 * connected in the background too (see coordination/index.ts).
 *
 * Shutdown: the listener closes, new requests on open connections get 503 and
 * `Connection: close`, requests in flight finish, and every connection that falls idle is
 * closed at once instead of after the keep-alive timeout. Past the grace period the remaining
 * connections are cut. Then the workers stop, the trace spans still buffered are sent
 * (ctx.close, bounded), the database and Redis are closed, and the process exits.
 */
export async function serve(config: Config): Promise<void> {
  const ctx = await createContext(config);
  ctx.health.schemaReady = false;
  const app = await buildApp(ctx);
  let stopping = false;

  if (!(await prepareDatabase(ctx, app))) {
    app.log.warn('database not reachable at start: listening anyway, migrating once it is');
    void (async () => {
      for (let delay = RETRY_FIRST_MS; !stopping; delay = Math.min(delay * 2, RETRY_MAX_MS)) {
        await sleep(delay);
        if (stopping) return;
        if (await prepareDatabase(ctx, app)) return;
      }
    })().catch((error: unknown) => {
      app.log.fatal({ err: error }, 'database preparation failed');
      process.exit(1);
    });
  }

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const grace = config.shutdownGraceMs;
    app.log.info({ signal, grace_ms: grace }, 'shutting down: finishing in-flight requests');
    const idle = setInterval(() => app.server.closeIdleConnections(), IDLE_CLOSE_INTERVAL_MS);
    const cut = setTimeout(() => {
      app.log.warn('grace period over: closing the remaining connections');
      app.server.closeAllConnections();
    }, grace);
    cut.unref();
    const abandon = setTimeout(() => {
      app.log.error('shutdown did not finish within the grace period: exiting');
      process.exit(1);
    }, grace + 5000);
    abandon.unref();
    try {
      await app.close();
      await ctx.close();
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    } finally {
      clearInterval(idle);
      clearTimeout(cut);
    }
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  await app.listen({ host: config.host, port: config.port });
}
