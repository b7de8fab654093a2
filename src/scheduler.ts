import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { AppContext } from './shared/context.js';
import { isDatabaseUnavailable } from './db/errors.js';
import { maintainTables } from './db/maintenance.js';
import { sweepExpiredReservations } from './modules/chat/index.js';
import { sweepInactiveConversations } from './modules/conversations/index.js';
import { ImportWorker, importDeps, backfillPass } from './modules/knowledge/index.js';
import { OutboxWorker, type OutboxSender } from './modules/outbox/index.js';
import { createWebhookSender } from './modules/webhooks/index.js';
import { widgetPushSender, widgetEmailSender } from './modules/widget/index.js';
import { createEmailSender, MailboxConnections, warnExpiringSecrets } from './modules/mailboxes/index.js';
import { messagingSenders, sweepWaiting } from './modules/messaging/index.js';

/** A background job: one pass of work, repeated every `intervalMs`. */
export interface Job {
  name: string;
  intervalMs: number;
  /** One pass; `true` means more work is waiting, so the next pass starts at once. */
  run(): Promise<boolean>;
}

/**
 * Runs background jobs, each in its own loop: a pass, then a pause of the job's interval (none
 * when the pass says more work is waiting). A failed pass is logged and the loop goes on.
 * The jobs claim their work in the database, so every instance can run them side by side.
 */
export class Scheduler {
  private running = false;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly current = new Map<string, Promise<void>>();

  constructor(
    private readonly jobs: Job[],
    private readonly log?: Pick<FastifyBaseLogger, 'error'>,
    /** Passes wait while this says no (the schema is not migrated yet). */
    private readonly canRun: () => boolean = () => true,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    for (const job of this.jobs) this.schedule(job, 0);
  }

  private schedule(job: Job, delayMs: number): void {
    const timer = setTimeout(() => {
      const pass = this.pass(job).finally(() => this.current.delete(job.name));
      this.current.set(job.name, pass);
    }, delayMs);
    timer.unref?.();
    this.timers.set(job.name, timer);
  }

  private async pass(job: Job): Promise<void> {
    let again = false;
    try {
      if (this.canRun()) again = await job.run();
    } catch (error) {
      // An unreachable database is logged once per outage (src/health.ts), not once per pass.
      if (!isDatabaseUnavailable(error))
        this.log?.error({ err: error, job: job.name }, 'background job failed');
    }
    if (this.running) this.schedule(job, again ? 0 : job.intervalMs);
  }

  /** Stops every loop and waits for the passes in progress. */
  async stop(): Promise<void> {
    this.running = false;
    for (const timer of this.timers.values()) clearTimeout(timer);
    await Promise.all(this.current.values());
  }
}

/** The registry of outbox senders by kind: every way a message leaves the service. */
export function outboxSenders(ctx: AppContext): OutboxSender[] {
  return [
    createWebhookSender(ctx),
    widgetPushSender(ctx),
    createEmailSender(ctx),
    widgetEmailSender(ctx),
    ...messagingSenders(ctx),
  ];
}

/**
 * The background jobs of an instance: the outbox (webhook deliveries), the conversations'
 * inactivity sweep, the return of quota reservations whose lease ran out, knowledge imports, the
 * vectors of knowledge entries stored while the embeddings endpoint failed, and on PGlite the
 * table maintenance that PostgreSQL's autovacuum does elsewhere.
 */
export function backgroundJobs(
  ctx: AppContext,
  log?: Pick<FastifyBaseLogger, 'error' | 'warn'>,
  mailboxes?: MailboxConnections,
): Job[] {
  const worker = new OutboxWorker({ db: ctx.db, senders: outboxSenders(ctx), log });
  const pollIntervalMs = ctx.config.webhooks.pollIntervalMs;
  const importer = new ImportWorker(importDeps(ctx));
  return [
    {
      name: 'outbox',
      intervalMs: pollIntervalMs,
      run: async () => (await worker.sendDue()).claimed === worker.batchSize,
    },
    {
      name: 'conversation-inactivity',
      intervalMs: Math.max(pollIntervalMs, 10_000),
      run: async () => (await sweepInactiveConversations(ctx)).full,
    },
    {
      name: 'quota-reservations',
      intervalMs: 60_000,
      run: async () => {
        const released = await sweepExpiredReservations(ctx.db);
        if (released > 0) log?.warn({ released }, 'expired quota reservations given back');
        return false;
      },
    },
    {
      name: 'knowledge-imports',
      intervalMs: pollIntervalMs,
      run: () => importer.step(),
    },
    {
      name: 'knowledge-vectors',
      intervalMs: KNOWLEDGE_VECTORS_INTERVAL_MS,
      run: async () => {
        const embeddings = ctx.embeddings;
        if (embeddings) await backfillPass(ctx.db, embeddings);
        return false;
      },
    },
    {
      // WhatsApp/SMS messages whose instance stopped before their turn.
      name: 'messaging-waiting',
      intervalMs: 10_000,
      run: async () => (await sweepWaiting(ctx)) === 100,
    },
    {
      name: 'mailbox-secret-expiry',
      intervalMs: 15 * 60_000,
      run: async () => {
        await warnExpiringSecrets(ctx);
        return false;
      },
    },
    ...(mailboxes
      ? [
          {
            name: 'mailbox-connections',
            // Renewed three times per lease, so a slow pass never lets a held lease run out.
            intervalMs: Math.floor((ctx.config.email.leaseSeconds * 1000) / 3),
            run: async () => {
              await mailboxes.pass();
              return false;
            },
          },
        ]
      : []),
    ...(ctx.db.kind === 'pglite'
      ? [
          {
            name: 'table-maintenance',
            intervalMs: TABLE_MAINTENANCE_INTERVAL_MS,
            run: async () => {
              await maintainTables(ctx.db);
              return false;
            },
          },
        ]
      : []),
  ];
}

/** How often entries left without vectors are looked after (only while some may be). */
const KNOWLEDGE_VECTORS_INTERVAL_MS = 60_000;

/** How often the embedded database's tables are checked for VACUUM and ANALYZE. */
const TABLE_MAINTENANCE_INTERVAL_MS = 30_000;

/** Starts the background jobs when the app is ready and stops them when it closes. */
export function startScheduler(app: FastifyInstance, ctx: AppContext): Scheduler {
  const mailboxes = ctx.config.email.syncEnabled ? new MailboxConnections(ctx, app.log) : undefined;
  const scheduler = new Scheduler(
    backgroundJobs(ctx, app.log, mailboxes),
    app.log,
    () => ctx.health.schemaReady,
  );
  app.addHook('onReady', async () => scheduler.start());
  app.addHook('onClose', async () => {
    await scheduler.stop();
    await mailboxes?.stop();
  });
  return scheduler;
}
