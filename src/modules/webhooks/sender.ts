import type { Config } from '../../config.js';
import type { AppContext } from '../../shared/context.js';
import type { Queryable } from '../../db/database.js';
import { webhookDeliveries } from '../../observability/metrics.js';
import {
  type Verdict,
  type OutboxMessage,
  OutboxWorker,
  type OutboxSender,
  type OutboxWorkerOptions,
  type SendResult,
} from '../outbox/index.js';
import { postJson, type PostResult } from '../../shared/guarded-http.js';
import { WEBHOOK_KIND } from './outbox.js';
import { disableEndpointOfDelivery, findDeliveryToSend, type DeliveryToSend } from './repository.js';
import { webhookSecretsFor, type WebhookSecrets } from './secret-box.js';
import { signedHeaders } from './signing.js';

export const GONE_REASON = 'The receiver answered 410 Gone';
/** A delivery to a switched-off endpoint waits this long before it looks again. */
export const HOLD_WHILE_DISABLED_MS = 10 * 60_000;

/** The Standard Webhooks message id: stable across retries and redeliveries of one event. */
export function messageId(eventId: string): string {
  return `msg_${eventId.replaceAll('-', '')}`;
}

/** The delivered body: `{type, timestamp, data}` as Standard Webhooks recommends. */
export function eventBody(
  delivery: Pick<DeliveryToSend, 'event_type' | 'event_created_at' | 'data'>,
): string {
  return JSON.stringify({
    type: delivery.event_type,
    timestamp: delivery.event_created_at.toISOString(),
    data: delivery.data,
  });
}

/**
 * The receiver's answer as a verdict: 2xx is sent; 410 Gone means the receiver no longer
 * exists (dead at once, and the endpoint is switched off); any other answer or none at all
 * is worth another attempt, honouring Retry-After.
 */
export function verdictOf(result: Pick<PostResult, 'statusCode' | 'retryAfter'>): Verdict {
  const status = result.statusCode;
  if (status !== undefined && status >= 200 && status < 300) return { kind: 'sent' };
  if (status === 410) return { kind: 'permanent', reason: GONE_REASON };
  return { kind: 'failed', retryAfter: result.retryAfter };
}

export interface WebhookSenderOptions {
  db: Queryable;
  webhooks: Config['webhooks'];
  secrets: WebhookSecrets;
}

/** Sends webhook deliveries: a signed POST, no redirects, the SSRF guard at connection time. */
export function webhookSender(options: WebhookSenderOptions): OutboxSender {
  const { db, webhooks, secrets } = options;
  const signingSecrets = (delivery: DeliveryToSend, now: Date): string[] => {
    const all = [secrets.open(delivery.secret, delivery.endpoint_id, 'secret')];
    if (
      delivery.previous_secret &&
      delivery.previous_secret_expires_at &&
      delivery.previous_secret_expires_at > now
    ) {
      all.push(secrets.open(delivery.previous_secret, delivery.endpoint_id, 'previous_secret'));
    }
    return all;
  };
  return {
    kind: WEBHOOK_KIND,
    maxAttempts: webhooks.maxAttempts,
    attemptTimeoutMs: webhooks.timeoutMs,
    async send(message: OutboxMessage, now: Date): Promise<SendResult> {
      const delivery = await findDeliveryToSend(db, message.id);
      if (!delivery) {
        return { verdict: { kind: 'permanent', reason: 'The delivery no longer exists' }, durationMs: 0 };
      }
      if (!delivery.is_active)
        return { verdict: { kind: 'held', delayMs: HOLD_WHILE_DISABLED_MS }, durationMs: 0 };
      let result: PostResult;
      try {
        const body = eventBody(delivery);
        const headers = signedHeaders(
          signingSecrets(delivery, now),
          messageId(delivery.event_id),
          Math.floor(now.getTime() / 1000),
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
      return { ...result, verdict: verdictOf(result) };
    },
    async afterAttempt(tx, message, next) {
      if (next.kind !== 'dead' || next.reason !== GONE_REASON) return;
      await disableEndpointOfDelivery(tx, message.tenant_id, message.id, GONE_REASON);
    },
    observe(outcome) {
      const label = { sent: 'succeeded', retried: 'retried', dead: 'failed', lost: 'lost', held: undefined }[
        outcome
      ];
      if (label) webhookDeliveries.inc({ outcome: label });
    },
  };
}

/** The webhook sender of an app context. */
export function createWebhookSender(
  ctx: AppContext,
  webhooks: Config['webhooks'] = ctx.config.webhooks,
): OutboxSender {
  return webhookSender({ db: ctx.db, webhooks, secrets: webhookSecretsFor(ctx.config) });
}

/** An outbox worker that sends webhook deliveries only (tests drive it by hand). */
export function createWebhookWorker(
  ctx: AppContext,
  overrides: Partial<Omit<OutboxWorkerOptions, 'senders'>> & { webhooks?: Config['webhooks'] } = {},
): OutboxWorker {
  const { webhooks, ...rest } = overrides;
  return new OutboxWorker({ db: ctx.db, senders: [createWebhookSender(ctx, webhooks)], ...rest });
}
