/**
 * Prometheus metrics of the process: one registry, every metric defined here. Call sites add
 * one-line observations; `/metrics` (system module) serves the text exposition format.
 *
 * Naming follows the Prometheus conventions (checked by test/observability/metrics.test.ts):
 * prefix `parley_`, base units (`_seconds`, `_bytes`), counters end in `_total`, gauges never.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Database } from '../db/database.js';
import { CHAT_EXTRA_TEXT, CHAT_TEXT } from '../http/errors.js';
import type { RefusalReason } from '../shared/refusal.js';

export const registry = new Registry();

collectDefaultMetrics({ register: registry, prefix: 'parley_' });
// prom-client names three gauges `_total`, which Prometheus reserves for counters;
// `parley_nodejs_active_resources` (by type) and `parley_nodejs_active_handles` remain.
for (const name of ['active_handles', 'active_requests', 'active_resources']) {
  registry.removeSingleMetric(`parley_nodejs_${name}_total`);
}
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const httpRequestDuration = new Histogram({
  name: 'parley_http_request_duration_seconds',
  help: 'HTTP request duration by route template, method and status',
  labelNames: ['method', 'route', 'status_code'],
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

/** The chat's outcomes: a closed set, one per error text of the chat endpoint. */
export const CHAT_OUTCOMES = {
  ok: 'ok',
  replayed: 'replayed',
  [CHAT_TEXT.messageRequired]: 'message_required',
  [CHAT_TEXT.messageTooLong]: 'message_too_long',
  [CHAT_TEXT.invalidSenderId]: 'invalid_sender_id',
  [CHAT_TEXT.keyRequired]: 'api_key_required',
  [CHAT_TEXT.keyInvalid]: 'api_key_invalid',
  [CHAT_TEXT.keyExpired]: 'api_key_expired',
  [CHAT_TEXT.rateLimited]: 'rate_limited',
  [CHAT_TEXT.internal]: 'internal_error',
  [CHAT_EXTRA_TEXT.invalidMetadata]: 'invalid_metadata',
  [CHAT_EXTRA_TEXT.unknownField]: 'unknown_field',
  [CHAT_EXTRA_TEXT.invalidIdempotencyKey]: 'invalid_idempotency_key',
  [CHAT_EXTRA_TEXT.serviceUnavailable]: 'service_unavailable',
} as const satisfies Record<string, string>;

/**
 * The chat's outcomes: ok, replayed, the conversation engine's refusal codes (noted by the
 * error handler and the stream writers, never read back from a text), or the label of an error
 * text of the HTTP layer (request parsing, keys, rate limit).
 */
export type ChatOutcome = (typeof CHAT_OUTCOMES)[keyof typeof CHAT_OUTCOMES] | RefusalReason | 'other_error';

/** The outcome label of a chat answer from its status and error text (never free text). */
export function chatOutcomeOf(statusCode: number, errorText?: string): ChatOutcome {
  if (statusCode < 400 && errorText === undefined) return 'ok';
  const known =
    errorText === undefined ? undefined : (CHAT_OUTCOMES as Record<string, ChatOutcome>)[errorText];
  return known ?? 'other_error';
}

export const chatRequests = new Counter({
  name: 'parley_chat_requests_total',
  help: 'Chat requests by outcome (ok, replayed, or the error of the chat endpoint)',
  labelNames: ['outcome'],
  registers: [registry],
});

export const quotaRefusals = new Counter({
  name: 'parley_chat_quota_refusals_total',
  help: 'Chat requests refused because the monthly message quota was used up',
  registers: [registry],
});

export const rateLimitRefusals = new Counter({
  name: 'parley_rate_limit_refusals_total',
  help: 'Requests refused by a rate limit, by limit (chat per API key, v1 per tenant)',
  labelNames: ['limit'],
  registers: [registry],
});

export const modelRequestDuration = new Histogram({
  name: 'parley_model_request_duration_seconds',
  help: 'AI model call duration (whole reply or whole stream) by provider and model',
  labelNames: ['provider', 'model'],
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const modelErrors = new Counter({
  name: 'parley_model_errors_total',
  help: 'AI model calls that failed, by provider and model',
  labelNames: ['provider', 'model'],
  registers: [registry],
});

export const modelTokens = new Counter({
  name: 'parley_model_tokens_total',
  help: 'Tokens of AI model calls by provider, model and direction (input = prompt, output = reply)',
  labelNames: ['provider', 'model', 'direction'],
  registers: [registry],
});

export const knowledgeSearchDuration = new Histogram({
  name: 'parley_knowledge_search_duration_seconds',
  help: 'Knowledge search duration of chat requests',
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
  registers: [registry],
});

export const knowledgeHits = new Counter({
  name: 'parley_knowledge_search_hits_total',
  help: 'Knowledge hits at or above the minimum score that entered chat prompts',
  registers: [registry],
});

export const webhookDeliveries = new Counter({
  name: 'parley_webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome (succeeded, retried, failed, lost = claim overtaken)',
  labelNames: ['outcome'],
  registers: [registry],
});

export const outboxAttempts = new Counter({
  name: 'parley_outbox_attempts_total',
  help: 'Outbox send attempts by kind and outcome (sent, retried, dead, held, lost = claim overtaken)',
  labelNames: ['kind', 'outcome'],
  registers: [registry],
});

export const cacheLookups = new Counter({
  name: 'parley_cache_lookups_total',
  help: 'Lookups of in-process caches by cache and result (hit, miss)',
  labelNames: ['cache', 'result'],
  registers: [registry],
});

/** The database that the database gauges read (the one of the running app). */
let watched: Database | undefined;

/** Points the pool and outbox gauges at a database; returns the function that stops it. */
export function watchDatabase(db: Database): () => void {
  watched = db;
  return () => {
    if (watched === db) watched = undefined;
  };
}

new Gauge({
  name: 'parley_db_pool_connections',
  help: 'PostgreSQL pool connections by state (in_use, idle); absent on the embedded database',
  labelNames: ['state'],
  registers: [registry],
  collect() {
    this.reset();
    const stats = watched?.poolStats?.();
    if (!stats) return;
    this.set({ state: 'in_use' }, stats.total - stats.idle);
    this.set({ state: 'idle' }, stats.idle);
  },
});

new Gauge({
  name: 'parley_db_pool_waiting_requests',
  help: 'Queries waiting for a free PostgreSQL pool connection',
  registers: [registry],
  collect() {
    this.reset();
    const stats = watched?.poolStats?.();
    if (stats) this.set(stats.waiting);
  },
});

interface OutboxFigures {
  kind: string;
  waiting: number;
  sending: number;
  dead: number;
  oldest_due_seconds: number | null;
}

/** One query per scrape feeds every outbox gauge (each gauge's collect awaits the same answer). */
let outboxScrape: Promise<OutboxFigures[] | undefined> | undefined;
function outboxFigures(): Promise<OutboxFigures[] | undefined> {
  if (!outboxScrape) {
    const db = watched;
    outboxScrape = (async () => {
      if (!db) return undefined;
      try {
        return await db.query<OutboxFigures>(
          `SELECT kind,
                  count(*) FILTER (WHERE status IN ('pending', 'retry'))::int AS waiting,
                  count(*) FILTER (WHERE status = 'sending')::int AS sending,
                  count(*) FILTER (WHERE status = 'dead')::int AS dead,
                  extract(epoch FROM now() - min(next_attempt_at)
                    FILTER (WHERE status <> 'dead' AND next_attempt_at <= now()))::float8 AS oldest_due_seconds
           FROM outbox_messages WHERE status IN ('pending', 'retry', 'sending', 'dead') GROUP BY kind`,
        );
      } catch {
        // A database that does not answer leaves the gauges without a value.
        return undefined;
      }
    })().finally(() => setImmediate(() => (outboxScrape = undefined)));
  }
  return outboxScrape;
}

new Gauge({
  name: 'parley_outbox_entries',
  help: 'Outbox messages by kind and state (waiting = pending or retry, sending, dead)',
  labelNames: ['kind', 'state'],
  registers: [registry],
  async collect() {
    this.reset();
    for (const row of (await outboxFigures()) ?? []) {
      this.set({ kind: row.kind, state: 'waiting' }, row.waiting);
      this.set({ kind: row.kind, state: 'sending' }, row.sending);
      this.set({ kind: row.kind, state: 'dead' }, row.dead);
    }
  },
});

new Gauge({
  name: 'parley_outbox_oldest_due_age_seconds',
  help: 'By kind: how long the oldest due outbox message has been waiting (0 when none is due)',
  labelNames: ['kind'],
  registers: [registry],
  async collect() {
    this.reset();
    for (const row of (await outboxFigures()) ?? []) {
      this.set({ kind: row.kind }, Math.max(0, row.oldest_due_seconds ?? 0));
    }
  },
});

new Gauge({
  name: 'parley_webhook_outbox_pending_deliveries',
  help: 'Webhook deliveries not yet delivered (waiting or being sent)',
  registers: [registry],
  async collect() {
    this.reset();
    const rows = await outboxFigures();
    if (!rows) return;
    const webhook = rows.find((row) => row.kind === 'webhook');
    this.set(webhook ? webhook.waiting + webhook.sending : 0);
  },
});

new Gauge({
  name: 'parley_webhook_outbox_oldest_due_age_seconds',
  help: 'How long the oldest due webhook delivery has been waiting (0 when none is due)',
  registers: [registry],
  async collect() {
    this.reset();
    const rows = await outboxFigures();
    if (!rows) return;
    this.set(Math.max(0, rows.find((row) => row.kind === 'webhook')?.oldest_due_seconds ?? 0));
  },
});

/** Times a knowledge search of the chat and counts its hits. */
export async function observeKnowledgeSearch<T>(search: Promise<T[]>): Promise<T[]> {
  const end = knowledgeSearchDuration.startTimer();
  const hits = await search;
  end();
  knowledgeHits.inc(hits.length);
  return hits;
}

const CHAT_ROUTE = '/api/bot-chat/:botId/chat';
/** Routes that answer with the chat's error texts: the chat endpoint and the dashboard's test chat. */
const CHAT_TEXT_ROUTES = new Set([CHAT_ROUTE, '/api/bots/:id/test-chat']);
const chatErrorText = new WeakMap<FastifyRequest, string>();
const chatRefusal = new WeakMap<FastifyRequest, RefusalReason>();

/** Notes the conversation engine's refusal a chat request ended with (its code). */
export function noteChatRefusal(request: FastifyRequest, reason: RefusalReason): void {
  chatRefusal.set(request, reason);
}

/** The outcome of an answered chat request (after its body was sent). */
export function chatOutcomeFor(request: FastifyRequest, reply: FastifyReply): ChatOutcome {
  const refusal = chatRefusal.get(request);
  if (refusal !== undefined) return refusal;
  const text = chatErrorText.get(request);
  if (text !== undefined || reply.statusCode >= 400) return chatOutcomeOf(reply.statusCode, text ?? '');
  return reply.getHeader('idempotent-replayed') === 'true' ? 'replayed' : 'ok';
}

/** Notes the error a chat stream ended with after its 200 status went out. */
export function noteChatStreamError(request: FastifyRequest, errorText: string): void {
  chatErrorText.set(request, errorText);
}

/** Records the outcome of one chat request (JSON answers here, streams from the SSE writer). */
export function recordChatOutcome(outcome: ChatOutcome): void {
  chatRequests.inc({ outcome });
  if (outcome === 'quota_exhausted') quotaRefusals.inc();
}

/**
 * Root hooks, so every route reaches them: request duration by route template, and the chat
 * outcome read from the error body the chat endpoint sends.
 */
export function registerRequestMetrics(app: FastifyInstance, db: Database): void {
  const unwatch = watchDatabase(db);
  app.addHook('onClose', async () => unwatch());
  app.addHook('onSend', async (request, reply, payload) => {
    const route = request.routeOptions.url;
    if (route && CHAT_TEXT_ROUTES.has(route) && reply.statusCode >= 400 && typeof payload === 'string') {
      try {
        const error = (JSON.parse(payload) as { error?: unknown }).error;
        if (typeof error === 'string') chatErrorText.set(request, error);
      } catch {
        // not JSON: counted as other_error
      }
    }
    return payload;
  });
  app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    httpRequestDuration.observe(
      { method: request.method, route, status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    if (route === CHAT_ROUTE) recordChatOutcome(chatOutcomeFor(request, reply));
  });
}

/** Whether a request may read /metrics: always without METRICS_TOKEN, else with it as Bearer. */
export function metricsAccessAllowed(token: string | undefined, authorization: string | undefined): boolean {
  if (!token) return true;
  const presented = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1] ?? '';
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Minutes without a successful sync after which a mailbox counts as stale (set from configuration). */
let mailboxStaleMinutes = 30;
export function setMailboxStaleMinutes(minutes: number): void {
  mailboxStaleMinutes = minutes;
}

new Gauge({
  name: 'parley_mailboxes_stale',
  help: 'Active IMAP and Graph mailboxes without a successful sync for longer than EMAIL_STALE_MINUTES',
  registers: [registry],
  async collect() {
    this.reset();
    const rows = await watched
      ?.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM mailboxes WHERE is_active AND kind IN ('imap', 'graph')
           AND coalesce(last_sync_at, created_at) < now() - make_interval(mins => $1)`,
        [mailboxStaleMinutes],
      )
      .catch(() => undefined);
    if (rows?.[0]) this.set(rows[0].n);
  },
});

new Gauge({
  name: 'parley_mailbox_secrets_expiring',
  help: 'Active mailboxes whose secret expires within the given days (30, 7, 1; 0: expired)',
  labelNames: ['within_days'],
  registers: [registry],
  async collect() {
    this.reset();
    const rows = await watched
      ?.query<{ d30: number; d7: number; d1: number; d0: number }>(
        `SELECT count(*) FILTER (WHERE secret_expires_at < now() + interval '30 days')::int AS d30,
                count(*) FILTER (WHERE secret_expires_at < now() + interval '7 days')::int AS d7,
                count(*) FILTER (WHERE secret_expires_at < now() + interval '1 day')::int AS d1,
                count(*) FILTER (WHERE secret_expires_at < now())::int AS d0
         FROM mailboxes WHERE is_active AND secret_expires_at IS NOT NULL`,
      )
      .catch(() => undefined);
    const row = rows?.[0];
    if (!row) return;
    for (const [days, n] of [
      ['30', row.d30],
      ['7', row.d7],
      ['1', row.d1],
      ['0', row.d0],
    ] as const) {
      this.set({ within_days: days }, n);
    }
  },
});
