import type { FastifyBaseLogger } from 'fastify';
import type { Database, Queryable } from '../../db/database.js';
import { outboxAttempts } from '../../observability/metrics.js';
import { decideNext, type NextState, type Verdict } from './policy.js';
import { claimDue, settle, type OutboxMessage, type Settlement } from './repository.js';

/** What a sender reports about one attempt: its verdict and what the attempt log keeps. */
export interface SendResult {
  verdict: Verdict;
  statusCode?: number;
  error?: string;
  responseBody?: string;
  durationMs: number;
}

export type AttemptOutcome = 'sent' | 'retried' | 'dead' | 'held' | 'lost';

/**
 * Sends the messages of one kind. The registry of senders is the only place that knows how a
 * message leaves (HTTP POST, SMTP, a widget stream …); the worker knows only the states.
 */
export interface OutboxSender {
  readonly kind: string;
  /** Attempts in one round before a message is dead. */
  readonly maxAttempts: number;
  /** Longest time one attempt may take (the claim's lease outlasts it). */
  readonly attemptTimeoutMs: number;
  /** Sends one message. Never throws: every outcome is a SendResult. */
  send(message: OutboxMessage, now: Date): Promise<SendResult>;
  /** Follow-up in the transaction that records the attempt (e.g. switching off a gone receiver). */
  afterAttempt?(tx: Queryable, message: OutboxMessage, next: NextState): Promise<void>;
  /** Told every outcome (metrics). */
  observe?(outcome: AttemptOutcome): void;
}

export interface OutboxWorkerOptions {
  db: Database;
  senders: OutboxSender[];
  log?: Pick<FastifyBaseLogger, 'error' | 'warn'>;
  /** Clock and randomness, replaceable in tests. */
  now?: () => Date;
  random?: () => number;
  batchSize?: number;
}

export interface RunSummary {
  claimed: number;
  sent: number;
  retried: number;
  dead: number;
}

/**
 * Sends due outbox messages, one batch per call (the scheduler repeats it). Messages are
 * claimed in the database, so any number of instances can run it; a claim left by a stopped
 * instance is taken over when its lease runs out. An attempt is recorded only by the worker
 * that still holds the claim, so an overtaken worker never records a second outcome.
 */
export class OutboxWorker {
  private readonly now: () => Date;
  private readonly random: () => number;
  private readonly senders: Map<string, OutboxSender>;
  private readonly leaseMs: number;
  readonly batchSize: number;

  constructor(private readonly options: OutboxWorkerOptions) {
    this.now = options.now ?? (() => new Date());
    this.random = options.random ?? Math.random;
    this.batchSize = options.batchSize ?? 20;
    this.senders = new Map(options.senders.map((s) => [s.kind, s]));
    // The lease outlasts the longest possible attempt (name lookup, connect, the answer).
    this.leaseMs = Math.max(0, ...options.senders.map((s) => 2 * s.attemptTimeoutMs)) + 30_000;
  }

  /** Claims one batch of due messages and sends them in parallel. */
  async sendDue(): Promise<RunSummary> {
    const now = this.now();
    const claimed = await claimDue(this.options.db, {
      kinds: [...this.senders.keys()],
      now,
      leaseUntil: new Date(now.getTime() + this.leaseMs),
      limit: this.batchSize,
    });
    const summary: RunSummary = { claimed: claimed.length, sent: 0, retried: 0, dead: 0 };
    const outcomes = await Promise.all(claimed.map((message) => this.attempt(message)));
    for (const outcome of outcomes) {
      if (outcome === 'sent') summary.sent += 1;
      else if (outcome === 'retried') summary.retried += 1;
      else if (outcome === 'dead') summary.dead += 1;
    }
    return summary;
  }

  private async attempt(message: OutboxMessage): Promise<AttemptOutcome> {
    const sender = this.senders.get(message.kind)!;
    let result: SendResult;
    try {
      result = await sender.send(message, this.now());
    } catch (error) {
      result = { verdict: { kind: 'failed' }, error: (error as Error).message, durationMs: 0 };
    }
    const nowMs = this.now().getTime();
    const next = decideNext({
      verdict: result.verdict,
      attempt: message.attempts - message.round_start,
      maxAttempts: sender.maxAttempts,
      nowMs,
      random: this.random(),
    });
    const settlement: Settlement =
      next.kind === 'sent'
        ? { status: 'sent' }
        : next.kind === 'retry'
          ? { status: 'retry', nextAttemptAt: new Date(nowMs + next.delayMs) }
          : next.kind === 'held'
            ? { status: 'held', nextAttemptAt: new Date(nowMs + next.delayMs) }
            : { status: 'dead', reason: next.reason ?? null };
    let recorded = false;
    try {
      recorded = await settle(
        this.options.db,
        message,
        {
          statusCode: result.statusCode ?? null,
          error: result.error ?? null,
          responseBody: result.responseBody ?? null,
          durationMs: result.durationMs,
        },
        settlement,
        sender.afterAttempt ? (tx) => sender.afterAttempt!(tx, message, next) : undefined,
      );
    } catch (error) {
      // The claim stays until its lease runs out; then another pass takes the message again.
      this.options.log?.error({ err: error, kind: message.kind }, 'outbox attempt not recorded');
    }
    const outcome: AttemptOutcome = !recorded ? 'lost' : next.kind === 'retry' ? 'retried' : next.kind;
    outboxAttempts.inc({ kind: message.kind, outcome });
    sender.observe?.(outcome);
    return outcome;
  }
}
