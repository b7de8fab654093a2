import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { enqueue } from '../../src/modules/outbox/repository.js';
import { OutboxWorker } from '../../src/modules/outbox/worker.js';
import { outboxSenders } from '../../src/scheduler.js';
import { startApp, stopApp, type TestApp } from '../helpers/app.js';
import { BACKENDS, openTestDatabase, type Backend, type TestDatabase } from '../helpers/db.js';
import { buildTenant } from '../helpers/factories.js';
import { send, SITE, startSession, widgetBot } from './helpers.js';

/** Reads a server-sent events response as it arrives. */
function openStream(
  port: number,
  headers: Record<string, string>,
): Promise<{ response: IncomingMessage; text: () => string; close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/widget/events',
        method: 'GET',
        headers: { accept: 'text/event-stream', ...headers },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('error', () => undefined);
        resolve({ response, text: () => body, close: () => req.destroy() });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const cases: Backend[] = BACKENDS;

describe.each(cases)('[%s] widget events across instances', (backend) => {
  let database: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  let port: number;
  beforeAll(async () => {
    database = await openTestDatabase(backend);
    // PGlite serves one process: memory fan-out within one instance. PostgreSQL: two instances over LISTEN/NOTIFY.
    const options = { postgresBroadcast: backend === 'postgres' };
    a = await startApp(database, options);
    b = backend === 'pglite' ? a : await startApp(database, options);
    await b.app.listen({ port: 0, host: '127.0.0.1' });
    port = (b.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await stopApp(a);
    if (b !== a) await stopApp(b);
    await database.close();
  });

  it('a widget.push sent by the outbox on instance A reaches a /v1/widget/events stream on instance B', async () => {
    const tenant = await buildTenant(a.ctx);
    const { publishableKey } = await widgetBot(a, tenant);
    const session = await startSession(a, publishableKey);
    const first = (await send(a, session, { text: 'Kann mir ein Mensch helfen?' })).json();
    const conversationId = first.conversation_id as string;
    const [botMessage] = await a.db.query<{ id: string }>(
      "SELECT id FROM messages WHERE conversation_id = $1 AND role = 'assistant'",
      [conversationId],
    );

    const stream = await openStream(port, session.headers);
    expect(stream.response.statusCode).toBe(200);
    expect(stream.response.headers['access-control-allow-origin']).toBe(SITE);

    // A person with a picture replies (stored by the inbox), then its push through the outbox of instance A.
    const avatar = 'https://cdn.example.com/team/anna.png';
    const profile = await a.app.inject({
      method: 'PATCH',
      url: '/api/me',
      headers: tenant.owner.headers,
      payload: { first_name: 'Anna', avatar_url: avatar },
    });
    expect(profile.statusCode, profile.body).toBe(200);
    const [reply] = await a.db.query<{ id: string }>(
      `INSERT INTO messages (tenant_id, conversation_id, bot_id, role, content, channel, author_user_id)
       SELECT tenant_id, id, bot_id, 'assistant', 'Hier ist Anna, ich helfe gern.', 'widget', $2 FROM conversations WHERE id = $1
       RETURNING id`,
      [conversationId, tenant.owner.id],
    );
    await a.db.transaction((tx) =>
      enqueue(tx, tenant.id, [
        {
          kind: 'widget.push',
          idempotencyKey: `widget.push:${reply!.id}`,
          payload: { conversation_id: conversationId, message_id: reply!.id },
        },
      ]),
    );
    const worker = new OutboxWorker({ db: a.db, senders: outboxSenders(a.ctx) });
    await vi.waitUntil(
      async () => {
        await worker.sendDue();
        return stream.text().includes(reply!.id);
      },
      { timeout: 10_000, interval: 100 },
    );
    const text = stream.text();
    expect(text).toContain(`id: ${reply!.id}\nevent: message\n`);
    expect(text).toContain('"from":"person"');
    expect(text).toContain(`"author":{"name":"Anna","avatar_url":"${avatar}"}`);
    expect(text).toContain('Hier ist Anna');
    stream.close();

    // Reconnecting with Last-Event-ID of the bot's message delivers what came after it.
    const resumed = await openStream(port, { ...session.headers, 'last-event-id': botMessage!.id });
    await vi.waitUntil(() => resumed.text().includes(reply!.id), { timeout: 5000, interval: 20 });
    expect(resumed.text()).not.toContain(`id: ${botMessage!.id}\n`);
    resumed.close();

    // Without the listed Origin the stream is refused.
    const foreign = await openStream(port, { ...session.headers, origin: 'https://evil.example' });
    expect(foreign.response.statusCode).toBe(403);
    foreign.close();
  });

  it('a hand-over on instance A tells the stream on instance B that a person will answer', async () => {
    const tenant = await buildTenant(a.ctx);
    const { publishableKey } = await widgetBot(a, tenant);
    const session = await startSession(a, publishableKey);
    expect((await send(a, session, { text: 'Hallo' })).statusCode).toBe(200);
    const stream = await openStream(port, session.headers);
    expect(stream.response.statusCode).toBe(200);
    await vi.waitUntil(() => stream.text().length > 0, { timeout: 5000, interval: 20 });
    expect(stream.text()).not.toContain('event: status');

    const handedOver = await send(a, session, { text: 'Ich möchte mit einem Menschen sprechen' });
    expect(handedOver.statusCode).toBe(200);
    await vi.waitUntil(() => stream.text().includes('event: status'), { timeout: 10_000, interval: 20 });
    expect(stream.text()).toContain('event: status\ndata: {"status":"handed_over"}');
    stream.close();
  });
});
