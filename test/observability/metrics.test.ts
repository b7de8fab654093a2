import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { enqueueEvent } from '../../src/modules/webhooks/outbox.js';
import { createWebhookWorker } from '../../src/modules/webhooks/sender.js';
import { registry } from '../../src/observability/metrics.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { sendChat } from '../chat/helpers.js';
import { addEntries } from '../knowledge/helpers.js';

/** The value of one series in the text format (labels in any order), or undefined. */
function series(body: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of body.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => present[k] === v)) return Number(match[3]);
  }
  return undefined;
}

describeApp(
  'Prometheus metrics',
  (get) => {
    const scrape = async () => {
      const res = await get().app.inject({ url: '/metrics' });
      expect(res.statusCode).toBe(200);
      return res.body;
    };

    it('times every route by its template, method and status (not only the system routes)', async () => {
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      await get().app.inject({ url: `/api/bots/${bot.id}`, headers: tenant.owner.headers });
      await get().app.inject({ url: '/v1/bots', headers: tenant.keyHeaders });
      await get().app.inject({ url: '/no/such/route' });
      const body = await scrape();
      const count = 'parley_http_request_duration_seconds_count';
      expect(
        series(body, count, { route: '/api/bots/:id', method: 'GET', status_code: '200' }),
      ).toBeGreaterThan(0);
      expect(series(body, count, { route: '/v1/bots', method: 'GET', status_code: '200' })).toBeGreaterThan(
        0,
      );
      expect(series(body, count, { route: 'unmatched', status_code: '404' })).toBeGreaterThan(0);
      // The bot id never becomes a label value.
      expect(body).not.toContain(bot.id);
    });

    it('counts chat outcomes, model calls, tokens, knowledge searches, quota and rate-limit refusals', async () => {
      const { ctx } = get();
      const tenant = await buildTenant(ctx, { quota: 2 });
      const bot = await tenant.bot();
      await addEntries(ctx, tenant.id, bot.id, [
        { title: 'Öffnungszeiten', content: 'Wir haben montags bis freitags von 9 bis 18 Uhr geöffnet.' },
      ]);
      const before = await scrape();
      const ok = await sendChat(get(), tenant, bot.id, { message: 'Wann habt ihr geöffnet?' });
      expect(ok.statusCode).toBe(200);
      expect((await sendChat(get(), tenant, bot.id, { message: '' })).statusCode).toBe(400);
      const missing = '00000000-0000-4000-8000-000000000000';
      expect((await sendChat(get(), tenant, missing, { message: 'Hallo' })).statusCode).toBe(404);
      expect((await sendChat(get(), tenant, bot.id, { message: 'Noch eine Frage' })).statusCode).toBe(200);
      expect((await sendChat(get(), tenant, bot.id, { message: 'Und noch eine' })).statusCode).toBe(429);
      const limited = await buildTenant(ctx);
      const limitedBot = await limited.bot();
      let status = 0;
      for (let i = 0; i < 6 && status !== 429; i += 1) {
        status = (await sendChat(get(), limited, limitedBot.id, { message: '' })).statusCode;
      }
      expect(status).toBe(429);
      const after = await scrape();

      const delta = (name: string, labels: Record<string, string> = {}) =>
        (series(after, name, labels) ?? 0) - (series(before, name, labels) ?? 0);
      expect(delta('parley_chat_requests_total', { outcome: 'ok' })).toBe(2);
      expect(delta('parley_chat_requests_total', { outcome: 'message_required' })).toBeGreaterThanOrEqual(1);
      expect(delta('parley_chat_requests_total', { outcome: 'bot_not_found' })).toBe(1);
      expect(delta('parley_chat_requests_total', { outcome: 'quota_exhausted' })).toBe(1);
      expect(delta('parley_chat_requests_total', { outcome: 'rate_limited' })).toBe(1);
      expect(delta('parley_chat_quota_refusals_total')).toBe(1);
      expect(delta('parley_rate_limit_refusals_total', { limit: 'chat' })).toBe(1);
      const model = { provider: 'offline', model: 'default' };
      expect(delta('parley_model_request_duration_seconds_count', model)).toBe(2);
      expect(delta('parley_model_tokens_total', { ...model, direction: 'input' })).toBeGreaterThan(0);
      expect(delta('parley_model_tokens_total', { ...model, direction: 'output' })).toBeGreaterThan(0);
      expect(delta('parley_knowledge_search_duration_seconds_count')).toBe(2);
      expect(delta('parley_knowledge_search_hits_total')).toBeGreaterThanOrEqual(1);
      expect(delta('parley_cache_lookups_total', { cache: 'api_key', result: 'hit' })).toBeGreaterThan(0);
      expect(series(after, 'parley_cache_lookups_total', { cache: 'knowledge_words' })).toBeDefined();
      // Message text never becomes a label value.
      expect(after).not.toContain('geöffnet');
    });

    it('counts webhook deliveries by outcome and reports the outbox', async () => {
      const { ctx } = get();
      const tenant = await buildTenant(ctx);
      await ctx.db.query(
        `INSERT INTO webhook_endpoints (tenant_id, url, event_types, secret)
         VALUES ($1, 'http://127.0.0.1:9/unreachable', ARRAY['lead.generated'], 'whsec_test')`,
        [tenant.id],
      );
      await ctx.db.transaction((tx) => enqueueEvent(tx, tenant.id, 'lead.generated', { n: 1 }));
      const pending = series(await scrape(), 'parley_webhook_outbox_pending_deliveries');
      expect(pending).toBeGreaterThanOrEqual(1);
      expect(series(await scrape(), 'parley_webhook_outbox_oldest_due_age_seconds')).toBeGreaterThanOrEqual(
        0,
      );
      const before = series(await scrape(), 'parley_webhook_deliveries_total', { outcome: 'retried' }) ?? 0;
      const worker = createWebhookWorker(ctx, {
        webhooks: { ...ctx.config.webhooks, allowPrivateTargets: true, timeoutMs: 500 },
      });
      const summary = await worker.sendDue();
      expect(summary.retried).toBeGreaterThanOrEqual(1);
      const after = series(await scrape(), 'parley_webhook_deliveries_total', { outcome: 'retried' }) ?? 0;
      expect(after - before).toBe(summary.retried);
    });

    it('reports the database pool (PostgreSQL) and the event-loop lag', async () => {
      const body = await scrape();
      expect(series(body, 'parley_nodejs_eventloop_lag_seconds')).toBeDefined();
      expect(series(body, 'parley_process_resident_memory_bytes')).toBeGreaterThan(0);
      if (get().backend === 'postgres') {
        expect(series(body, 'parley_db_pool_connections', { state: 'idle' })).toBeDefined();
        expect(series(body, 'parley_db_pool_connections', { state: 'in_use' })).toBeDefined();
        expect(series(body, 'parley_db_pool_waiting_requests')).toBe(0);
      } else {
        expect(series(body, 'parley_db_pool_connections')).toBeUndefined();
      }
    });
  },
  { env: { CHAT_RATE_LIMIT_MAX: '5' } },
);

describeApp(
  'metrics token',
  (get) => {
    it('refuses /metrics without the token and serves it with the token', async () => {
      const none = await get().app.inject({ url: '/metrics' });
      expect(none.statusCode).toBe(401);
      expect(none.json()).toMatchObject({ error: 'unauthorized' });
      expect(none.body).not.toContain('s3cret');
      const wrong = await get().app.inject({ url: '/metrics', headers: { authorization: 'Bearer nope' } });
      expect(wrong.statusCode).toBe(401);
      const right = await get().app.inject({
        url: '/metrics',
        headers: { authorization: 'Bearer s3cret-metrics-token' },
      });
      expect(right.statusCode).toBe(200);
      expect(right.body).toContain('# TYPE parley_http_request_duration_seconds histogram');
    });
  },
  { env: { METRICS_TOKEN: 's3cret-metrics-token' } },
);

it('names every metric by the Prometheus conventions (what promtool check metrics checks)', async () => {
  const text = await registry.metrics();
  const types = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!] as const));
  const helps = new Set([...text.matchAll(/^# HELP (\S+) \S/gm)].map((m) => m[1]!));
  expect(types.size).toBeGreaterThan(20);
  const problems: string[] = [];
  for (const [name, type] of types) {
    if (!/^[a-z_:][a-z0-9_:]*$/.test(name)) problems.push(`${name}: not snake_case`);
    if (!name.startsWith('parley_')) problems.push(`${name}: no parley_ prefix`);
    if (!helps.has(name)) problems.push(`${name}: no HELP`);
    if (type === 'counter' && !name.endsWith('_total')) problems.push(`${name}: counter without _total`);
    if (type !== 'counter' && name.endsWith('_total')) problems.push(`${name}: ${type} named _total`);
    if (/_(milliseconds|ms|kilobytes|megabytes|minutes|hours)(_|$)/.test(name))
      problems.push(`${name}: not a base unit`);
    if (type === 'histogram' && !/_(seconds|bytes)$/.test(name))
      problems.push(`${name}: histogram without unit`);
    if (/duration|latency|lag|age/.test(name) && !/_seconds(_total)?$/.test(name))
      problems.push(`${name}: time not in _seconds`);
  }
  expect(problems).toEqual([]);
  for (const name of [
    'parley_chat_requests_total',
    'parley_model_request_duration_seconds',
    'parley_model_errors_total',
    'parley_model_tokens_total',
    'parley_chat_quota_refusals_total',
    'parley_rate_limit_refusals_total',
    'parley_knowledge_search_duration_seconds',
    'parley_knowledge_search_hits_total',
    'parley_webhook_deliveries_total',
    'parley_webhook_outbox_pending_deliveries',
    'parley_webhook_outbox_oldest_due_age_seconds',
    'parley_db_pool_connections',
    'parley_db_pool_waiting_requests',
    'parley_cache_lookups_total',
    'parley_nodejs_eventloop_lag_seconds',
  ]) {
    expect(types.has(name), name).toBe(true);
  }
});

it('builds the Grafana dashboard in docs/ops/ only on metrics the service exports', async () => {
  const dashboard = JSON.parse(
    readFileSync(new URL('../../docs/ops/grafana-dashboard.json', import.meta.url), 'utf8'),
  ) as { panels: { targets: { expr: string }[] }[] };
  const text = await registry.metrics();
  const exported = new Set([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => m[1]!));
  const used = dashboard.panels.flatMap((p) =>
    p.targets.flatMap((t) => [...t.expr.matchAll(/\b(parley_\w+?)(_bucket|_count|_sum)?\b(?=[{[\s)])/g)]),
  );
  expect(used.length).toBeGreaterThan(10);
  const unknown = used.map((m) => m[1]!).filter((name) => !exported.has(name));
  expect(unknown).toEqual([]);
});
