/**
 * The mailbox connections of an instance. Each pass takes or renews the lease of every active
 * IMAP and Graph mailbox: a mailbox whose lease this instance holds gets a runner (an IMAP
 * connection with IDLE, or Graph delta rounds); one whose lease another instance holds gets
 * none, and a runner whose lease was lost stops. An instance that stops gives its leases back;
 * one that dies loses them when they run out, and another instance takes over.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { ImapFlow } from 'imapflow';
import type { AppContext } from '../../../shared/context.js';
import {
  acquireLease,
  activeSyncedMailboxes,
  findMailboxById,
  recordSyncError,
  recordTokenExpiry,
  releaseLease,
  saveCursor,
  type MailboxRow,
} from '../../mailboxes/repository.js';
import { secretStoreFor } from '../../mailboxes/secret-store.js';
import { deltaRound, graphAttachments, graphClient, graphMail, graphRaw, markRead } from './graph.js';
import { imapClient, syncRound } from './imap.js';
import { receiveMail } from './inbound.js';
import { describeConnectorError } from '../../email/index.js';

type Log = Pick<FastifyBaseLogger, 'warn' | 'error'>;

/** Backoff between reconnects: doubling from 1 s up to 5 min. */
export function reconnectDelay(failures: number): number {
  return Math.min(300_000, 1000 * 2 ** Math.max(0, failures - 1));
}

/** A failure as the mailbox's last error: its code (shown in words) and the raw detail. */
function failure(error: unknown): { code: string; detail: string } {
  const { code, detail } = describeConnectorError(error);
  return { code, detail };
}

interface Runner {
  stop(): Promise<void>;
}

/** An IMAP mailbox held by this instance: connect, round, IDLE until mail or the poll timer, again. */
class ImapRunner implements Runner {
  private stopped = false;
  private client: ImapFlow | undefined;
  private chain: Promise<void> = Promise.resolve();
  private wake: (() => void) | undefined;
  private readonly done: Promise<void>;
  /** Connections given up and made again (for tests and diagnostics). */
  reconnects = 0;

  constructor(
    private readonly ctx: AppContext,
    private readonly mailboxId: string,
    private readonly holder: string,
    private readonly log?: Log,
  ) {
    this.done = this.loop();
  }

  /** Set when a round on the current connection failed (whatever then closed the connection). */
  private roundFailed = false;
  /** Whether a round on the current connection completed. */
  private roundSucceeded = false;

  private async loop(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      this.roundFailed = false;
      this.roundSucceeded = false;
      const mailbox = await findMailboxById(this.ctx.db, this.mailboxId).catch(() => undefined);
      if (!mailbox) return;
      const client = imapClient(mailbox, secretStoreFor(this.ctx.config), {
        allowPrivate: this.ctx.config.outbound.allowPrivateTargets,
      });
      this.client = client;
      let poll: NodeJS.Timeout | undefined;
      try {
        client.on('error', () => undefined);
        await client.connect();
        const closed = new Promise<void>((resolve) => {
          client.on('close', () => resolve());
          this.wake = resolve;
        });
        client.on('exists', () => this.kick(mailbox));
        this.kick(mailbox);
        // The connection's own poll (IDLE may miss mail on some servers): re-armed while it is held.
        const every = this.ctx.config.email.pollIntervalMs;
        const rearm = () => {
          poll = setTimeout(() => {
            this.kick(mailbox);
            rearm();
          }, every);
          poll.unref();
        };
        rearm();
        await closed;
        await this.chain;
        // A connection counts as good only when a round completed on it and none failed: a
        // server that lets us log in and then fails every round still backs off.
        if (this.roundFailed || !this.roundSucceeded) failures += 1;
        else failures = 0;
      } catch (error) {
        failures += 1;
        await recordSyncError(this.ctx.db, this.mailboxId, failure(error)).catch(() => undefined);
      } finally {
        if (poll) clearTimeout(poll);
        this.client = undefined;
        client.close();
      }
      if (this.stopped) break;
      this.reconnects += 1;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, reconnectDelay(Math.max(1, failures)));
        timer.unref();
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** One more round after those queued; rounds never overlap on a connection. */
  private kick(mailbox: MailboxRow): void {
    this.chain = this.chain.then(async () => {
      const client = this.client;
      if (!client || this.stopped || !client.usable) return;
      try {
        while (!this.stopped && (await syncRound(this.ctx, client, mailbox, this.holder)).more) {
          // A full batch: the next follows at once.
        }
        this.roundSucceeded = true;
        // IDLE at once (imapflow would start it only after 15 s without commands): a mail that
        // arrives now is reported at once. The next command (the next round) ends it.
        if (!this.stopped && client.usable) void client.idle().catch(() => undefined);
      } catch (error) {
        this.roundFailed = true;
        const recorded = failure(error);
        await recordSyncError(this.ctx.db, this.mailboxId, recorded).catch(() => undefined);
        this.log?.warn({ mailbox: this.mailboxId, err: recorded }, 'mailbox round failed');
        client.close();
      }
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    this.client?.close();
    await this.done;
  }
}

/** A Graph mailbox held by this instance: a delta round every poll interval. */
class GraphRunner implements Runner {
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: AppContext,
    private readonly mailboxId: string,
    private readonly holder: string,
  ) {
    this.schedule(0);
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      this.current = graphRound(this.ctx, this.mailboxId, this.holder)
        .then(() => undefined)
        .finally(() => {
          if (!this.stopped) this.schedule(this.ctx.config.email.pollIntervalMs);
        });
    }, ms);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.current;
  }
}

/**
 * One Graph round: the token (its expiry recorded), the delta pages, each unread mail (with its
 * attachments) settled and marked read, then the new delta link stored. A failed round leaves the old delta link:
 * the next round sees the same mails again, and the settled ones are duplicates.
 */
export async function graphRound(ctx: AppContext, mailboxId: string, holder: string | null): Promise<number> {
  const mailbox = await findMailboxById(ctx.db, mailboxId);
  if (!mailbox) return 0;
  try {
    const client = graphClient(mailbox, secretStoreFor(ctx.config), ctx.config.email);
    const { expiresAt } = await client.token();
    await recordTokenExpiry(ctx.db, mailbox.id, expiresAt);
    const { messages, deltaLink } = await deltaRound(client, mailbox);
    let deferred = false;
    for (const message of messages) {
      const mail = graphMail(message);
      // A failure here fails the round before the mail is stored: the next round tries it again.
      if (message.hasAttachments)
        mail.attachments = await graphAttachments(client, mailbox, message.id, ctx.config.email);
      mail.raw = await graphRaw(client, mailbox, message, mail);
      const outcome = await receiveMail(ctx, mailbox, mail);
      // A mail whose turn is still reserved stays unread, and the delta link stays where it
      // was: the next round sees it again (the settled ones as duplicates).
      if (outcome.status === 'deferred') deferred = true;
      else await markRead(client, mailbox, message.id);
    }
    if (deferred) return messages.length;
    if (!(await saveCursor(ctx.db, mailbox.id, holder, { ...mailbox.cursor, delta_link: deltaLink }))) {
      throw new Error('the mailbox lease was lost during the round');
    }
    return messages.length;
  } catch (error) {
    await recordSyncError(ctx.db, mailbox.id, failure(error));
    return 0;
  }
}

export class MailboxConnections {
  readonly holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly runners = new Map<string, Runner>();

  constructor(
    private readonly ctx: AppContext,
    private readonly log?: Log,
  ) {}

  /** Takes or renews leases and starts or stops runners to match. */
  async pass(): Promise<number> {
    const seconds = this.ctx.config.email.leaseSeconds;
    const mailboxes = await activeSyncedMailboxes(this.ctx.db);
    const wanted = new Set<string>();
    for (const mailbox of mailboxes) {
      if (!(await acquireLease(this.ctx.db, mailbox.id, this.holder, seconds))) continue;
      wanted.add(mailbox.id);
      if (!this.runners.has(mailbox.id)) {
        this.runners.set(
          mailbox.id,
          mailbox.kind === 'graph'
            ? new GraphRunner(this.ctx, mailbox.id, this.holder)
            : new ImapRunner(this.ctx, mailbox.id, this.holder, this.log),
        );
      }
    }
    for (const [id, runner] of this.runners) {
      if (wanted.has(id)) continue;
      this.runners.delete(id);
      await runner.stop();
    }
    return this.runners.size;
  }

  get held(): string[] {
    return [...this.runners.keys()];
  }

  /** Stops every runner and gives the leases back, so another instance can take over at once. */
  async stop(): Promise<void> {
    const all = [...this.runners.entries()];
    this.runners.clear();
    await Promise.all(all.map(([, runner]) => runner.stop()));
    await Promise.all(all.map(([id]) => releaseLease(this.ctx.db, id, this.holder).catch(() => undefined)));
  }
}
