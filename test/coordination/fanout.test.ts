import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { conversationTopic, fanoutOf, tenantTopic, type FanoutEvent } from '../../src/coordination/fanout.js';
import { startApp, stopApp, type TestApp } from '../helpers/app.js';
import { BACKENDS, openTestDatabase, type Backend, type TestDatabase } from '../helpers/db.js';

type Broadcast = 'redis' | 'postgres' | 'memory';

/** Which broadcasts run on which backend: Redis when REDIS_URL is set, LISTEN/NOTIFY on PostgreSQL, memory on PGlite. */
const cases: Array<[Backend, Broadcast]> = BACKENDS.flatMap((backend) => [
  ...(process.env.REDIS_URL ? [[backend, 'redis'] as [Backend, Broadcast]] : []),
  ...(backend === 'postgres' ? [[backend, 'postgres'] as [Backend, Broadcast]] : []),
  ...(backend === 'pglite' ? [[backend, 'memory'] as [Backend, Broadcast]] : []),
]);

describe.each(cases)('[%s] fan-out over %s', (_backend, broadcast) => {
  let database: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    database = await openTestDatabase(_backend);
    const options = { redis: broadcast === 'redis', postgresBroadcast: broadcast === 'postgres' };
    a = await startApp(database, options);
    // Process memory is one process: the embedded database serves exactly one instance.
    b = broadcast === 'memory' ? a : await startApp(database, options);
    if (broadcast === 'redis') {
      await vi.waitUntil(() => [a, b].every((app) => app.ctx.coordination.broadcastsArrive?.()), {
        timeout: 10_000,
      });
    }
  });
  afterAll(async () => {
    await stopApp(a);
    if (b !== a) await stopApp(b);
    await database.close();
  });

  it("an event published on instance A reaches a subscriber on instance B, and only that topic's", async () => {
    const tenant = crypto.randomUUID();
    const conversation = crypto.randomUUID();
    const received: FanoutEvent[] = [];
    const other: FanoutEvent[] = [];
    const stop = await fanoutOf(b.ctx.coordination).subscribe(conversationTopic(tenant, conversation), (e) =>
      received.push(e),
    );
    const otherTopic = tenantTopic(crypto.randomUUID());
    const stopOther = await fanoutOf(b.ctx.coordination).subscribe(otherTopic, (e) => other.push(e));
    const event = { type: 'message.created', conversation_id: conversation, message_id: crypto.randomUUID() };
    await fanoutOf(a.ctx.coordination).publish(conversationTopic(tenant, conversation), event);
    await vi.waitUntil(() => received.length > 0, { timeout: 5000, interval: 10 });
    expect(received).toEqual([event]);

    // After unsubscribing, nothing more arrives.
    await stop();
    await fanoutOf(a.ctx.coordination).publish(conversationTopic(tenant, conversation), { type: 'late' });
    // A marker published after it on a topic still heard: once it is here, 'late' would be too.
    await fanoutOf(a.ctx.coordination).publish(otherTopic, { type: 'marker' });
    await vi.waitUntil(() => other.length > 0, { timeout: 5000, interval: 10 });
    expect(received).toHaveLength(1);
    expect(other).toEqual([{ type: 'marker' }]);
    await stopOther();
  });

  it('several events published at once reach their topics on instance B, in order', async () => {
    const tenant = crypto.randomUUID();
    const conversation = crypto.randomUUID();
    const onConversation: FanoutEvent[] = [];
    const onTenant: FanoutEvent[] = [];
    const fanoutB = fanoutOf(b.ctx.coordination);
    const stops = [
      await fanoutB.subscribe(conversationTopic(tenant, conversation), (e) => onConversation.push(e)),
      await fanoutB.subscribe(tenantTopic(tenant), (e) => onTenant.push(e)),
    ];
    await fanoutOf(a.ctx.coordination).publishAll([
      { topic: tenantTopic(tenant), event: { type: 'inbox', n: 1 } },
      { topic: conversationTopic(tenant, conversation), event: { type: 'status', n: 2 } },
      { topic: tenantTopic(tenant), event: { type: 'inbox', n: 3 } },
    ]);
    await vi.waitUntil(() => onTenant.length === 2 && onConversation.length === 1, {
      timeout: 5000,
      interval: 10,
    });
    expect(onTenant).toEqual([
      { type: 'inbox', n: 1 },
      { type: 'inbox', n: 3 },
    ]);
    expect(onConversation).toEqual([{ type: 'status', n: 2 }]);
    for (const stop of stops) await stop();
  });

  it('refuses a payload that is not ids (too long)', async () => {
    await expect(
      fanoutOf(a.ctx.coordination).publish(tenantTopic('t'), { type: 'x', text: 'x'.repeat(2000) }),
    ).rejects.toThrow('too long');
  });

  if (broadcast === 'postgres') {
    it('after the listening connection is lost, subscribers are told to reload and events arrive again', async () => {
      const topic = tenantTopic(crypto.randomUUID());
      const received: FanoutEvent[] = [];
      const stop = await fanoutOf(b.ctx.coordination).subscribe(topic, (e) => received.push(e));
      // End the LISTEN connections of this test database (another instance's loss of PostgreSQL).
      await database.db.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'`,
      );
      await vi.waitUntil(() => received.some((e) => e.type === 'resync'), { timeout: 10_000, interval: 20 });
      await vi.waitUntil(
        () => a.ctx.coordination.broadcastsArrive?.() && b.ctx.coordination.broadcastsArrive?.(),
        {
          timeout: 10_000,
        },
      );
      await fanoutOf(a.ctx.coordination).publish(topic, { type: 'after' });
      await vi.waitUntil(() => received.some((e) => e.type === 'after'), { timeout: 5000, interval: 10 });
      await stop();
    });
  }
});
