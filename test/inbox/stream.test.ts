import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startApp, stopApp, type TestApp } from '../helpers/app.js';
import { BACKENDS, openTestDatabase, type Backend, type TestDatabase } from '../helpers/db.js';
import { buildTenant } from '../helpers/factories.js';
import { sendChat } from '../chat/helpers.js';

type Broadcast = 'redis' | 'postgres' | 'memory';

/** Redis when REDIS_URL is set, LISTEN/NOTIFY on PostgreSQL, process memory on PGlite (one instance). */
const cases: Array<[Backend, Broadcast]> = BACKENDS.flatMap((backend) => [
  ...(process.env.REDIS_URL ? [[backend, 'redis'] as [Backend, Broadcast]] : []),
  ...(backend === 'postgres' ? [[backend, 'postgres'] as [Backend, Broadcast]] : []),
  ...(backend === 'pglite' ? [[backend, 'memory'] as [Backend, Broadcast]] : []),
]);

/** Reads server-sent events from a live HTTP stream until stopped. */
async function openStream(url: string, token: string) {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
  const events: { event: string; data: Record<string, unknown> }[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data: JSON.parse(data) as Record<string, unknown> });
        }
      }
    } catch {
      // aborted
    }
  })();
  return { events, close: () => controller.abort() };
}

describe.each(cases)('[%s] inbox stream across instances over %s', (backend, broadcast) => {
  let database: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  let baseB: string;
  beforeAll(async () => {
    database = await openTestDatabase(backend);
    const options = {
      redis: broadcast === 'redis',
      postgresBroadcast: broadcast === 'postgres',
      env: { HANDOVER_ON_NO_ANSWER: 'true' },
    };
    a = await startApp(database, options);
    b = broadcast === 'memory' ? a : await startApp(database, options);
    if (broadcast === 'redis') {
      await vi.waitUntil(() => [a, b].every((app) => app.ctx.coordination.broadcastsArrive?.()), {
        timeout: 10_000,
      });
    }
    await b.app.listen({ port: 0, host: '127.0.0.1' });
    baseB = `http://127.0.0.1:${(b.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await stopApp(a);
    if (b !== a) await stopApp(b);
    await database.close();
  });

  it('a hand-over and a reply written on instance A appear on the stream held by instance B', async () => {
    const tenant = await buildTenant(a.ctx);
    const bot = await tenant.bot();
    const stream = await openStream(`${baseB}/api/inbox/stream`, tenant.owner.token);
    await vi.waitUntil(() => stream.events.some((e) => e.event === 'ready'), { timeout: 5000, interval: 10 });

    const chat = await sendChat(a, tenant, bot.id, { message: 'I want to talk to a human' });
    const id = chat.json<{ conversation_id: string }>().conversation_id;
    await vi.waitUntil(
      () => stream.events.some((e) => e.event === 'inbox' && e.data.conversation_id === id),
      {
        timeout: 5000,
        interval: 10,
      },
    );
    expect(stream.events.find((e) => e.event === 'inbox')!.data).toEqual({
      type: 'inbox',
      conversation_id: id,
      status: 'waiting',
    });

    const reply = await a.app.inject({
      method: 'POST',
      url: `/api/inbox/${id}/reply`,
      headers: tenant.owner.headers,
      payload: { text: 'Hello, this is Anna.' },
    });
    expect(reply.statusCode).toBe(201);
    const messageId = reply.json<{ id: string }>().id;
    await vi.waitUntil(
      () => stream.events.some((e) => e.event === 'message' && e.data.message_id === messageId),
      {
        timeout: 5000,
        interval: 10,
      },
    );
    expect(stream.events.some((e) => e.event === 'inbox' && e.data.status === 'with_person')).toBe(true);

    // Another tenant's stream hears nothing of it.
    const stranger = await buildTenant(a.ctx);
    const other = await openStream(`${baseB}/api/inbox/stream`, stranger.owner.token);
    await vi.waitUntil(() => other.events.some((e) => e.event === 'ready'), { timeout: 5000, interval: 10 });
    await a.app.inject({
      method: 'POST',
      url: `/api/inbox/${id}/notes`,
      headers: tenant.owner.headers,
      payload: { text: 'note' },
    });
    await a.app.inject({ method: 'POST', url: `/api/inbox/${id}/close`, headers: tenant.owner.headers });
    await vi.waitUntil(() => stream.events.some((e) => e.event === 'inbox' && e.data.status === 'closed'), {
      timeout: 5000,
      interval: 10,
    });
    expect(other.events.map((e) => e.event)).toEqual(['ready']);
    stream.close();
    other.close();
  });
});
