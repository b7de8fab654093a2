import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { enqueueEvent } from '../../src/modules/webhooks/outbox.js';
import { createWebhookWorker } from '../../src/modules/webhooks/sender.js';
import { describeApp, startApp, stopApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { startReceiver, type Receiver } from './helpers.js';
import { waitFor } from '../helpers/net.js';

const ENV = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_MAX_ATTEMPTS: '3',
  WEBHOOK_TIMEOUT_MS: '3000',
  WEBHOOK_SECRETS_KEY: 'test-secrets-key-0123456789abcdef0123',
};

describeApp(
  'webhook delivery',
  (get) => {
    let receiver: Receiver;
    beforeAll(async () => {
      receiver = await startReceiver();
    });
    afterAll(() => receiver.close());

    /** A clock the worker reads; tests move it forward to make retries due. */
    let clock = Date.now();
    const worker = (overrides: Parameters<typeof createWebhookWorker>[1] = {}) =>
      createWebhookWorker(get().ctx, { now: () => new Date(clock), random: () => 0.5, ...overrides });

    async function register(tenant: TenantFixture, path: string, types = ['lead.generated']) {
      const res = await get().app.inject({
        method: 'POST',
        url: '/api/webhooks',
        headers: tenant.owner.headers,
        payload: { url: `${receiver.url}/${path}`, event_types: types },
      });
      expect(res.statusCode).toBe(201);
      return res.json() as { webhook: { id: string }; secret: string };
    }

    const emit = (
      tenantId: string,
      data: object,
      type: 'lead.generated' | 'booking.created' = 'lead.generated',
    ) => get().db.transaction((tx) => enqueueEvent(tx, tenantId, type, data));

    it('delivers a signed event that the standardwebhooks package verifies', async () => {
      const tenant = await buildTenant(get().ctx);
      const { webhook, secret } = await register(tenant, 'signed');
      const [stored] = await get().db.query<{ secret: string }>(
        'SELECT secret FROM webhook_endpoints WHERE id = $1',
        [webhook.id],
      );
      expect(stored!.secret).toMatch(/^s1:/);
      expect(stored!.secret).not.toContain(secret.slice(6, 20));
      const before = receiver.received.length;
      await emit(tenant.id, { conversation_id: 'c-1', contact: { email: 'lea@example.test' } });
      clock = Date.now() + 1000;
      const summary = await worker().sendDue();
      expect(summary).toMatchObject({ claimed: 1, sent: 1 });
      const request = receiver.received[before]!;
      const payload = new Webhook(secret).verify(request.body, {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      });
      expect(payload).toMatchObject({
        type: 'lead.generated',
        data: { conversation_id: 'c-1', contact: { email: 'lea@example.test' } },
      });
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
      const [delivery] = await get().db.query<{ status: string; attempts: number }>(
        'SELECT status, attempts FROM webhook_delivery_log WHERE endpoint_id = $1',
        [webhook.id],
      );
      expect(delivery).toEqual({ status: 'succeeded', attempts: 1 });
    });

    it('stores nothing for events nobody subscribes to, and nothing when the causing transaction rolls back', async () => {
      const tenant = await buildTenant(get().ctx);
      await register(tenant, 'unsubscribed', ['booking.created']);
      await emit(tenant.id, { x: 1 }, 'lead.generated');
      await expect(
        get().db.transaction(async (tx) => {
          await enqueueEvent(tx, tenant.id, 'booking.created', { x: 2 });
          throw new Error('the booking failed');
        }),
      ).rejects.toThrow('the booking failed');
      const events = await get().db.query('SELECT 1 FROM webhook_events WHERE tenant_id = $1', [tenant.id]);
      expect(events).toHaveLength(0);
    });

    it('retries a failing receiver with backoff, honours Retry-After, then succeeds', async () => {
      const tenant = await buildTenant(get().ctx);
      const { webhook } = await register(tenant, 'flaky');
      const answers = [
        { status: 500, body: 'boom' },
        { status: 429, headers: { 'retry-after': '120' } },
        { status: 200 },
      ];
      const seen: string[] = [];
      receiver.respond((request) => {
        if (!String(request.headers['user-agent']).startsWith('Parley')) return undefined;
        const body = JSON.parse(request.body) as { data: { tenant?: string } };
        if (body.data.tenant !== tenant.id) return undefined;
        seen.push(String(request.headers['webhook-id']));
        return answers.shift();
      });
      await emit(tenant.id, { tenant: tenant.id });
      clock = Date.now() + 1000;
      const row = async () =>
        (
          await get().db.query<{
            status: string;
            attempts: number;
            next_attempt_at: Date;
            last_status_code: number;
          }>(
            'SELECT status, attempts, next_attempt_at, last_status_code FROM webhook_delivery_log WHERE endpoint_id = $1',
            [webhook.id],
          )
        )[0]!;

      expect(await worker().sendDue()).toMatchObject({ claimed: 1, retried: 1 });
      let state = await row();
      expect(state).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500 });
      expect(state.next_attempt_at.getTime() - clock).toBe(30_000);
      // Not due yet: nothing is claimed.
      expect((await worker().sendDue()).claimed).toBe(0);

      clock += 30_000;
      await worker().sendDue();
      state = await row();
      expect(state).toMatchObject({ status: 'pending', attempts: 2, last_status_code: 429 });
      expect(state.next_attempt_at.getTime() - clock).toBe(120_000);

      clock += 120_000;
      expect(await worker().sendDue()).toMatchObject({ sent: 1 });
      expect(await row()).toMatchObject({ status: 'succeeded', attempts: 3, last_status_code: 200 });
      expect(seen).toHaveLength(3);
      expect(new Set(seen).size).toBe(1);

      const deliveries = await get().app.inject({
        method: 'GET',
        url: `/api/webhooks/${webhook.id}/deliveries`,
        headers: tenant.owner.headers,
      });
      const [logged] = deliveries.json().data;
      const detail = await get().app.inject({
        method: 'GET',
        url: `/api/webhooks/${webhook.id}/deliveries/${logged.id}`,
        headers: tenant.owner.headers,
      });
      expect(detail.statusCode).toBe(200);
      expect(detail.json().attempts.map((a: { status_code: number }) => a.status_code)).toEqual([
        500, 429, 200,
      ]);
      expect(detail.json().attempts[0].response_body).toBe('boom');
      expect(detail.json().payload).toEqual({ tenant: tenant.id });
      receiver.respond(() => undefined);
    });

    it('marks a delivery failed after the last attempt', async () => {
      const tenant = await buildTenant(get().ctx);
      const { webhook } = await register(tenant, 'down');
      receiver.respond((request) => (request.body.includes(tenant.id) ? { status: 503 } : undefined));
      await emit(tenant.id, { tenant: tenant.id });
      clock = Date.now() + 1000;
      for (let attempt = 1; attempt <= 3; attempt += 1) {
        await worker().sendDue();
        clock += 13 * 3600_000;
      }
      const [row] = await get().db.query<{ status: string; attempts: number }>(
        'SELECT status, attempts FROM webhook_delivery_log WHERE endpoint_id = $1',
        [webhook.id],
      );
      expect(row).toEqual({ status: 'failed', attempts: 3 });
      expect((await worker().sendDue()).claimed).toBe(0);
      receiver.respond(() => undefined);
    });

    it('disables the endpoint when the receiver answers 410 Gone', async () => {
      const tenant = await buildTenant(get().ctx);
      const { webhook } = await register(tenant, 'gone');
      receiver.respond((request) => (request.body.includes(tenant.id) ? { status: 410 } : undefined));
      await emit(tenant.id, { tenant: tenant.id });
      clock = Date.now() + 1000;
      await worker().sendDue();
      const res = await get().app.inject({
        method: 'GET',
        url: `/api/webhooks/${webhook.id}`,
        headers: tenant.owner.headers,
      });
      expect(res.json().webhook).toMatchObject({
        is_active: false,
        disabled_reason: expect.stringContaining('410'),
      });
      const [delivery] = await get().db.query<{ id: string; status: string }>(
        'SELECT id, status FROM webhook_delivery_log WHERE endpoint_id = $1',
        [webhook.id],
      );
      expect(delivery!.status).toBe('failed');
      await emit(tenant.id, { tenant: tenant.id, again: true });
      const count = await get().db.query('SELECT 1 FROM webhook_delivery_log WHERE endpoint_id = $1', [
        webhook.id,
      ]);
      expect(count).toHaveLength(1);
      const redeliver = await get().app.inject({
        method: 'POST',
        url: `/api/webhooks/${webhook.id}/deliveries/${delivery!.id}/redeliver`,
        headers: tenant.owner.headers,
      });
      expect(redeliver.statusCode).toBe(409);
      receiver.respond(() => undefined);
    });

    it('refuses at delivery time a target that now counts as internal (DNS rebinding guard)', async () => {
      const tenant = await buildTenant(get().ctx);
      const { webhook } = await register(tenant, 'rebound');
      const before = receiver.received.length;
      await emit(tenant.id, { tenant: tenant.id });
      clock = Date.now() + 1000;
      const strict = worker({ webhooks: { ...get().ctx.config.webhooks, allowPrivateTargets: false } });
      expect(await strict.sendDue()).toMatchObject({ claimed: 1, retried: 1 });
      expect(receiver.received.length).toBe(before);
      const [row] = await get().db.query<{ last_error: string }>(
        'SELECT last_error FROM webhook_delivery_log WHERE endpoint_id = $1',
        [webhook.id],
      );
      expect(row!.last_error).toMatch(/^refused: .*127\.0\.0\.1/);
    });

    it('two workers never deliver the same event twice', async () => {
      const tenant = await buildTenant(get().ctx);
      await register(tenant, 'parallel');
      const second = await startApp(get().database, { env: ENV });
      try {
        const ids: string[] = [];
        receiver.respond((request) => {
          if (!request.body.includes(tenant.id)) return undefined;
          ids.push(String(request.headers['webhook-id']));
          return { status: 200, delayMs: 20 };
        });
        for (let i = 0; i < 30; i += 1) await emit(tenant.id, { tenant: tenant.id, i });
        clock = Date.now() + 1000;
        const a = worker({ batchSize: 7 });
        const b = createWebhookWorker(second.ctx, { now: () => new Date(clock), batchSize: 7 });
        for (let round = 0; round < 10; round += 1) {
          const [ra, rb] = await Promise.all([a.sendDue(), b.sendDue()]);
          if (ra.claimed + rb.claimed === 0) break;
        }
        expect(ids).toHaveLength(30);
        expect(new Set(ids).size).toBe(30);
        const rows = await get().db.query<{ status: string; attempts: number }>(
          'SELECT status, attempts FROM webhook_delivery_log WHERE tenant_id = $1',
          [tenant.id],
        );
        expect(rows.every((r) => r.status === 'succeeded' && r.attempts === 1)).toBe(true);
      } finally {
        receiver.respond(() => undefined);
        await stopApp(second);
      }
    });

    it('resumes after a restart: pending deliveries and claims of a stopped instance are delivered', async () => {
      const tenant = await buildTenant(get().ctx);
      const { webhook } = await register(tenant, 'restart');
      await emit(tenant.id, { tenant: tenant.id, n: 1 });
      await emit(tenant.id, { tenant: tenant.id, n: 2 });
      // One delivery was claimed by an instance that stopped before finishing: its lease ran out.
      await get().db.query(
        `UPDATE outbox_messages SET status = 'sending', attempts = 1, locked_until = now() - interval '1 second'
         WHERE id = (SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at LIMIT 1)`,
        [webhook.id],
      );
      const received: number[] = [];
      receiver.respond((request) => {
        if (request.body.includes(tenant.id))
          received.push((JSON.parse(request.body) as { data: { n: number } }).data.n);
        return undefined;
      });
      // A fresh instance with its background worker on picks both up by itself.
      const restarted = await startApp(get().database, {
        env: { ...ENV, WEBHOOK_WORKER: 'true', WEBHOOK_POLL_INTERVAL_MS: '20' },
      });
      try {
        await waitFor(() => received.length >= 2, 10_000, 'both deliveries by the restarted worker');
      } finally {
        await stopApp(restarted);
        receiver.respond(() => undefined);
      }
      expect(received.sort()).toEqual([1, 2]);
      const rows = await get().db.query<{ status: string }>(
        'SELECT status FROM webhook_delivery_log WHERE endpoint_id = $1',
        [webhook.id],
      );
      expect(rows.map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
    });

    it('keeps a live claim of another worker untouched', async () => {
      const tenant = await buildTenant(get().ctx);
      const { webhook } = await register(tenant, 'claimed');
      await emit(tenant.id, { tenant: tenant.id });
      await get().db.query(
        `UPDATE outbox_messages SET status = 'sending', attempts = 1, locked_until = now() + interval '1 hour'
         WHERE id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id = $1)`,
        [webhook.id],
      );
      const before = await get().db.query(
        `SELECT status, attempts, locked_until FROM outbox_messages
         WHERE id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id = $1)`,
        [webhook.id],
      );
      clock = Date.now() + 1000;
      // Other tests' messages of this database may be due; this one must stay as it is.
      await worker().sendDue();
      const after = await get().db.query(
        `SELECT status, attempts, locked_until FROM outbox_messages
         WHERE id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id = $1)`,
        [webhook.id],
      );
      expect(before).toHaveLength(1);
      expect(after).toEqual(before);
    });

    it('lists the delivery log page by page and redelivers an event with the same webhook-id', async () => {
      const tenant = await buildTenant(get().ctx);
      const { webhook } = await register(tenant, 'log');
      const ids: string[] = [];
      receiver.respond((request) => {
        if (request.body.includes(tenant.id)) ids.push(String(request.headers['webhook-id']));
        return undefined;
      });
      await emit(tenant.id, { tenant: tenant.id, n: 1 });
      await emit(tenant.id, { tenant: tenant.id, n: 2 });
      clock = Date.now() + 1000;
      await worker().sendDue();
      const url = `/api/webhooks/${webhook.id}/deliveries`;
      const page1 = await get().app.inject({
        method: 'GET',
        url: `${url}?limit=1`,
        headers: tenant.owner.headers,
      });
      expect(page1.statusCode).toBe(200);
      expect(page1.json().data).toHaveLength(1);
      const cursor = page1.json().next_cursor as string;
      expect(cursor).toEqual(expect.any(String));
      const page2 = await get().app.inject({
        method: 'GET',
        url: `${url}?limit=1&cursor=${cursor}`,
        headers: tenant.owner.headers,
      });
      expect(page2.json().data).toHaveLength(1);
      expect(page2.json().data[0].id).not.toBe(page1.json().data[0].id);
      const bad = await get().app.inject({
        method: 'GET',
        url: `${url}?cursor=zzz`,
        headers: tenant.owner.headers,
      });
      expect(bad.statusCode).toBe(400);
      const filtered = await get().app.inject({
        method: 'GET',
        url: `${url}?status=failed`,
        headers: tenant.owner.headers,
      });
      expect(filtered.json().data).toEqual([]);

      const original = page2.json().data[0];
      const redeliver = await get().app.inject({
        method: 'POST',
        url: `${url}/${original.id}/redeliver`,
        headers: tenant.owner.headers,
      });
      expect(redeliver.statusCode).toBe(202);
      expect(redeliver.json().delivery).toMatchObject({
        status: 'pending',
        attempts: 0,
        event_id: original.event_id,
      });
      // The redelivery is due from the moment it was made (a slow machine may have passed the clock).
      clock = Date.now() + 1000;
      await worker().sendDue();
      expect(ids).toHaveLength(3);
      expect(ids.filter((id) => id === original.message_id)).toHaveLength(2);
      receiver.respond(() => undefined);

      const other = await buildTenant(get().ctx);
      for (const path of [`${url}/${original.id}`, `${url}/${original.id}/redeliver`]) {
        const res = await get().app.inject({
          method: path.endsWith('redeliver') ? 'POST' : 'GET',
          url: path.replace(webhook.id, webhook.id),
          headers: other.owner.headers,
        });
        expect(res.statusCode).toBe(404);
      }
      const editor = await tenant.user('editor');
      expect((await get().app.inject({ method: 'GET', url, headers: editor.headers })).statusCode).toBe(403);
      expect((await get().app.inject({ method: 'GET', url })).statusCode).toBe(401);
    });
  },
  { env: ENV },
);
