import type { FastifyBaseLogger } from 'fastify';
import { webhookDeliveries } from '../../observability/metrics.js';
import type { Config } from '../../config.js';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/database.js';
import { postJson, type PostResult } from './http-post.js';
import { decideAfterAttempt } from './retry-policy.js';
import { SecretBox } from './secret-box.js';
import { signedHeaders } from './signing.js';
import {
  claimDueDeliveries,
  recordAttempt,
  type ClaimedDelivery,
  type DeliveryResolution,
} from './worker-store.js';

export interface WorkerOptions {
  db: Database;
  webhooks: Config['webhooks'];
  secrets: SecretBox;
  log?: Pick<FastifyBaseLogger, 'error' | 'warn'>;
  /** Clock and randomness, replaceable in tests. */
  now?: () => Date;
  random?: () => number;
  batchSize?: number;
}

export interface RunSummary {
  claimed: number;
  succeeded: number;
  retried: number;
  failed: number;
}

/** The Standard Webhooks message id: stable across retries and redeliveries of one event. */
export function messageId(eventId: string): string {
  return `msg_${eventId.replaceAll('-', '')}`;
}

/** The delivered body: `{type, timestamp, data}` as Standard Webhooks recommends. */
export function eventBody(
  delivery: Pick<ClaimedDelivery, 'event_type' | 'event_created_at' | 'data'>,
): string {
  return JSON.stringify({
    type: delivery.event_type,
    timestamp: delivery.event_created_at.toISOString(),
    data: delivery.data,
  });
}

/**
 * Delivers due webhook deliveries, one batch per call (the scheduler repeats it). Deliveries
 * are claimed in the database, so any number of instances can run it; a claim left by a
 * stopped instance is taken over when its lease runs out.
 */
export class WebhookWorker {
  private readonly now: () => Date;
  private readonly random: () => number;
  readonly batchSize: number;

  constructor(private readonly options: WorkerOptions) {
    this.now = options.now ?? (() => new Date());
    this.random = options.random ?? Math.random;
    this.batchSize = options.batchSize ?? 20;
  }

  /** Claims and delivers one batch of due deliveries in parallel. */
  async deliverDue(): Promise<RunSummary> {
    const { timeoutMs } = this.options.webhooks;
    const now = this.now();
    // The lease outlasts the longest possible attempt (name lookup, connect, the answer).
    const leaseUntil = new Date(now.getTime() + 2 * timeoutMs + 30_000);
    const claimed = await claimDueDeliveries(this.options.db, { now, leaseUntil, limit: this.batchSize });
    const summary = { claimed: claimed.length, succeeded: 0, retried: 0, failed: 0 };
    const outcomes = await Promise.all(claimed.map((delivery) => this.deliver(delivery)));
    for (const outcome of outcomes) {
      if (outcome === 'succeeded') summary.succeeded += 1;
      else if (outcome === 'pending') summary.retried += 1;
      else if (outcome === 'failed') summary.failed += 1;
    }
    return summary;
  }

  private async deliver(delivery: ClaimedDelivery): Promise<DeliveryResolution['status'] | 'lost'> {
    const { webhooks } = this.options;
    let result: PostResult;
    try {
      const body = eventBody(delivery);
      const headers = signedHeaders(
        this.signingSecrets(delivery),
        messageId(delivery.event_id),
        Math.floor(this.now().getTime() / 1000),
        body,
      );
      result = await postJson(
        delivery.url,
        { 'content-type': 'application/json', 'user-agent': 'Parley-Webhooks/1.0', ...headers },
        body,
        { timeoutMs: webhooks.timeoutMs, allowPrivate: webhooks.allowPrivateTargets },
      );
    } catch (error) {
      // Signing failed (e.g. the secret cannot be decrypted): counts as a failed attempt.
      result = { error: (error as Error).message, durationMs: 0 };
    }
    const nowMs = this.now().getTime();
    const decision = decideAfterAttempt({
      outcome: { statusCode: result.statusCode, retryAfter: result.retryAfter },
      attempt: delivery.attempts,
      maxAttempts: webhooks.maxAttempts,
      nowMs,
      random: this.random(),
    });
    const resolution: DeliveryResolution =
      decision.kind === 'succeeded'
        ? { status: 'succeeded' }
        : decision.kind === 'retry'
          ? { status: 'pending', nextAttemptAt: new Date(nowMs + decision.delayMs) }
          : decision.kind === 'disable_endpoint'
            ? { status: 'failed', disableEndpoint: 'The receiver answered 410 Gone' }
            : { status: 'failed' };
    const recorded = await recordAttempt(
      this.options.db,
      delivery,
      {
        statusCode: result.statusCode ?? null,
        error: result.error ?? null,
        responseBody: result.responseBody ?? null,
        durationMs: result.durationMs,
      },
      resolution,
    );
    webhookDeliveries.inc({
      outcome: !recorded ? 'lost' : resolution.status === 'pending' ? 'retried' : resolution.status,
    });
    return recorded ? resolution.status : 'lost';
  }

  private signingSecrets(delivery: ClaimedDelivery): string[] {
    const secrets = [this.options.secrets.open(delivery.secret)];
    if (
      delivery.previous_secret &&
      delivery.previous_secret_expires_at &&
      delivery.previous_secret_expires_at.getTime() > this.now().getTime()
    ) {
      secrets.push(this.options.secrets.open(delivery.previous_secret));
    }
    return secrets;
  }
}

/** The delivery worker of an app context (tests build their own to drive it by hand). */
export function createWebhookWorker(ctx: AppContext, overrides: Partial<WorkerOptions> = {}): WebhookWorker {
  return new WebhookWorker({
    db: ctx.db,
    webhooks: ctx.config.webhooks,
    secrets: new SecretBox(ctx.config.webhooks.secretsKey),
    ...overrides,
  });
}
