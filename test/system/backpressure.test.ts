import type { AddressInfo } from 'node:net';
import { expect, it, vi } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { describeApp, type TestApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { sendChat, usageOf } from '../chat/helpers.js';
import { connectionTable, postSigned, RelaySimulator, voiceConnection } from '../voice/helpers.js';

const LIMIT = 3;

/**
 * Makes statements queue for the database: every connection (PGlite has one, the PostgreSQL
 * test pool 20) is held by an open transaction, then more statements than the limit are sent.
 * Returns the function that lets everything finish.
 */
async function congest(t: TestApp): Promise<() => Promise<void>> {
  const db: Database = t.db;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const holders = t.backend === 'pglite' ? 1 : 20;
  let open = 0;
  const transactions = Array.from({ length: holders }, () =>
    db.transaction(async (tx) => {
      await tx.query('SELECT 1');
      open += 1;
      await held;
    }),
  );
  await vi.waitFor(() => expect(open).toBe(holders), { timeout: 10_000 });
  const queued = Array.from({ length: LIMIT + 2 }, () => db.query('SELECT 1'));
  await vi.waitFor(() => expect(db.waiting()).toBeGreaterThan(LIMIT), { timeout: 10_000 });
  return async () => {
    release();
    await Promise.all([...transactions, ...queued]);
  };
}

describeApp(
  'backpressure',
  (get) => {
    it('answers chat 503 with the German text and Retry-After at once while the database queue is full', async () => {
      const t = get();
      const tenant = await buildTenant(t.ctx);
      const bot = await tenant.bot();
      const before = await usageOf(t, tenant.id);
      const finish = await congest(t);
      try {
        const res = await sendChat(t, tenant, bot.id, { message: 'Hallo?' });
        expect(res.statusCode).toBe(503);
        expect(res.json()).toEqual({ error: 'Dienst vorübergehend nicht verfügbar' });
        expect(res.headers['retry-after']).toBe('1');
      } finally {
        await finish();
      }
      // Nothing was reserved or stored for the refused request; afterwards the chat answers.
      expect(await usageOf(t, tenant.id)).toEqual(before);
      const ok = await sendChat(t, tenant, bot.id, { message: 'Hallo?' });
      expect(ok.statusCode).toBe(200);
    });

    it('answers other API endpoints 503 service_unavailable with Retry-After, also before authentication', async () => {
      const t = get();
      const tenant = await buildTenant(t.ctx);
      const finish = await congest(t);
      try {
        const listed = await t.app.inject({ url: '/v1/bots', headers: tenant.keyHeaders });
        expect(listed.statusCode).toBe(503);
        expect(listed.json()).toMatchObject({ error: 'service_unavailable' });
        expect(listed.headers['retry-after']).toBe('1');
        // An overloaded database is not asked to check keys either.
        const anonymous = await t.app.inject({ url: '/v1/bots' });
        expect(anonymous.statusCode).toBe(503);
      } finally {
        await finish();
      }
      expect((await t.app.inject({ url: '/v1/bots', headers: tenant.keyHeaders })).statusCode).toBe(200);
      expect((await t.app.inject({ url: '/v1/bots' })).statusCode).toBe(401);
    });

    it('answers health and readiness while every connection is busy and statements queue', async () => {
      const t = get();
      const finish = await congest(t);
      try {
        // Both return while the transactions still hold the database: they do not wait behind it.
        const health = await t.app.inject({ url: '/health' });
        expect(health.statusCode).toBe(200);
        const ready = await t.app.inject({ url: '/ready' });
        expect(ready.statusCode).toBe(200);
        expect(ready.json()).toEqual({ status: 'ready', database: t.backend });
      } finally {
        await finish();
      }
    });

    it('never sheds the relay socket of a call it admitted: the call goes on once the queue drains', async () => {
      const t = get();
      const tenant = await buildTenant(t.ctx);
      const bot = await tenant.bot();
      const connection = voiceConnection(tenant.id, bot.id);
      connectionTable(t.ctx).set(connection.id, connection);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (t.app.server.address() as AddressInfo).port;
      const sid = `CA${'0'.repeat(31)}7a1`;
      const incoming = await postSigned(t.app, connection, 'incoming', {
        CallSid: sid,
        From: '+491701234567',
      });
      expect(incoming.statusCode).toBe(200);
      const finish = await congest(t);
      let relay: Awaited<ReturnType<typeof RelaySimulator.connect>>;
      try {
        // A new call is shed while statements queue; the admitted call's socket opens.
        const other = await postSigned(t.app, connection, 'incoming', {
          CallSid: `${sid}b`,
          From: '+491701234568',
        });
        expect(other.statusCode).toBe(503);
        relay = await RelaySimulator.connect(port, connection);
        expect(relay).toBeInstanceOf(RelaySimulator);
      } finally {
        await finish();
      }
      const sim = relay as RelaySimulator;
      sim.setup(sid, '+491701234567');
      sim.prompt('Hallo, wer ist da?');
      expect((await sim.turnText(1)).length).toBeGreaterThan(0);
      sim.close();
    });
  },
  { env: { DATABASE_QUEUE_LIMIT: String(LIMIT) } },
);
