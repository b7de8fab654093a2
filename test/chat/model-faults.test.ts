import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { testConfig } from '../../src/config.js';
import { createModelProvider } from '../../src/modules/models/index.js';
import { describeApp, type TestApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { FakeModelServer, type FakeBehaviour } from './fake-model-server.js';
import { useModel } from './fixtures.js';
import { chatUrl, parseSse, sendChat } from './helpers.js';
import { eventually, ledgerOf, settled } from './ledger.js';

const TIMEOUT_MS = 400;
const SSE = { accept: 'text/event-stream' };

/** Opens a real connection, reads until the first delta, then hangs up. */
async function hangUpAfterFirstDelta(t: TestApp, tenant: TenantFixture, botId: string, key: string) {
  const address = t.app.server.address() as AddressInfo;
  await new Promise<void>((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: address.port,
        method: 'POST',
        path: chatUrl(botId),
        headers: {
          ...tenant.keyHeaders,
          'content-type': 'application/json',
          accept: 'text/event-stream',
          'idempotency-key': key,
        },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
          if (body.includes('event: delta')) {
            req.destroy();
            resolve();
          }
        });
        res.on('end', () => reject(new Error(`stream ended before a delta: ${body}`)));
      },
    );
    req.on('error', () => undefined);
    req.end(JSON.stringify({ message: 'Hallo' }));
  });
}

for (const provider of ['openai', 'anthropic'] as const) {
  describeApp(`chat: model faults (${provider})`, (get) => {
    const server = new FakeModelServer();
    let restore: () => void;

    beforeAll(async () => {
      await server.start();
      const env =
        provider === 'openai'
          ? { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: 'sk-fault-test' }
          : { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'ak-fault-test' };
      const config = testConfig({ MODEL_PROVIDER: provider, MODEL_TIMEOUT_MS: String(TIMEOUT_MS), ...env });
      restore = useModel(get().ctx, createModelProvider(config.model));
      await get().app.listen({ port: 0, host: '127.0.0.1' });
    });
    afterAll(async () => {
      restore();
      await server.stop();
    });
    beforeEach(() => {
      server.requests.length = 0;
      server.queue = [];
    });

    async function scenario(behaviour: FakeBehaviour, headers: Record<string, string> = {}) {
      const tenant = await buildTenant(get().ctx, { quota: 5 });
      const bot = await tenant.bot();
      server.queue = [behaviour, behaviour];
      const started = Date.now();
      const res = await sendChat(
        get(),
        tenant,
        bot.id,
        { message: 'Hallo' },
        { 'idempotency-key': 'k-1', ...headers },
      );
      return { tenant, bot, res, elapsed: Date.now() - started };
    }

    it('a complete stream is stored and charged once', async () => {
      const { tenant, res } = await scenario({ kind: 'reply', text: 'Gerne helfe ich weiter.' }, SSE);
      expect(parseSse(res.body).at(-1)!.event).toBe('done');
      expect(await ledgerOf(get().db, tenant.id)).toEqual(settled(1));
      const sent = server.requests[0]!.headers;
      if (provider === 'anthropic') {
        // The bundled Anthropic SDK sends the key as a bearer token, not as x-api-key.
        expect(sent.authorization).toBe('Bearer ak-fault-test');
        expect(sent['x-api-key']).toBeUndefined();
      } else {
        expect(sent.authorization).toBe('Bearer sk-fault-test');
      }
    });

    it('a stream that ends without its end marker is a model failure: error event, nothing stored or charged', async () => {
      const { tenant, res } = await scenario({ kind: 'unfinished', text: 'Eine halbe Antwort' }, SSE);
      const events = parseSse(res.body);
      expect(events.filter((e) => e.event === 'delta').length).toBeGreaterThan(0);
      expect(events.at(-1)).toMatchObject({ event: 'error', data: { error: 'KI-Modell nicht verfügbar' } });
      expect(events.some((e) => e.event === 'done')).toBe(false);
      expect(await ledgerOf(get().db, tenant.id)).toEqual(settled(0));
    });

    it('a stream cut by the server ends with an error event and stores nothing', async () => {
      const { tenant, res } = await scenario({ kind: 'cut', text: 'Abgeschnittene Antwort hier' }, SSE);
      expect(parseSse(res.body).at(-1)).toMatchObject({ event: 'error' });
      expect(await ledgerOf(get().db, tenant.id)).toEqual(settled(0));
    });

    it('JSON: a model that stalls after its headers is timed out (503) and charges nothing', async () => {
      const { tenant, res, elapsed } = await scenario({ kind: 'stall', after: 'headers' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBeDefined();
      expect(elapsed).toBeLessThan(TIMEOUT_MS * 2 + 1500);
      expect(await ledgerOf(get().db, tenant.id)).toEqual(settled(0));
    });

    it('JSON: a model that stalls halfway through its body is timed out', async () => {
      const { tenant, res, elapsed } = await scenario({ kind: 'stall', after: 'first-delta' });
      expect(res.statusCode).toBe(503);
      expect(elapsed).toBeLessThan(TIMEOUT_MS * 2 + 1500);
      expect(await ledgerOf(get().db, tenant.id)).toEqual(settled(0));
    });

    it('JSON: a malformed body is a model failure', async () => {
      const { tenant, res } = await scenario({ kind: 'malformed' });
      expect(res.statusCode).toBe(503);
      expect(await ledgerOf(get().db, tenant.id)).toEqual(settled(0));
    });

    it('stream: a model that stalls after its headers answers 503 before the stream opens', async () => {
      const { tenant, res, elapsed } = await scenario({ kind: 'stall', after: 'headers' }, SSE);
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(elapsed).toBeLessThan(TIMEOUT_MS * 2 + 1500);
      expect(await ledgerOf(get().db, tenant.id)).toEqual(settled(0));
    });

    it('stream: a model that stalls after the first delta is timed out with an error event', async () => {
      const { tenant, res, elapsed } = await scenario({ kind: 'stall', after: 'first-delta' }, SSE);
      const events = parseSse(res.body);
      expect(events[0]!.event).toBe('delta');
      expect(events.at(-1)).toMatchObject({ event: 'error', data: { error: 'KI-Modell nicht verfügbar' } });
      expect(elapsed).toBeLessThan(TIMEOUT_MS * 2 + 1500);
      expect(await ledgerOf(get().db, tenant.id)).toEqual(settled(0));
    });

    it('stream: malformed events are a model failure', async () => {
      const { tenant, res } = await scenario({ kind: 'malformed' }, SSE);
      expect(res.statusCode === 503 || parseSse(res.body).at(-1)?.event === 'error').toBe(true);
      expect(await ledgerOf(get().db, tenant.id)).toEqual(settled(0));
    });

    it('a client that hangs up after the first delta gets nothing stored, charged or claimed', async () => {
      const tenant = await buildTenant(get().ctx, { quota: 5 });
      const bot = await tenant.bot();
      // The model keeps sending, each gap well inside MODEL_TIMEOUT_MS, and would finish after
      // about 1.2 s: only the hang-up can keep the reply from being stored.
      const words = 'Eine lange Antwort mit zwölf Wörtern, die nach und nach eintrifft, bis zum Ende.';
      const abandoned = server.abandoned;
      server.queue = [{ kind: 'trickle', intervalMs: 100, text: words }];
      await hangUpAfterFirstDelta(get(), tenant, bot.id, 'k-hangup');
      // The model call is aborted: its connection closes before the reply is complete, so no
      // whole reply can arrive after this; the turn is over once its claims are given back.
      await vi.waitUntil(() => server.abandoned > abandoned, { timeout: 1000, interval: 10 });
      const ledger = await eventually(
        () => ledgerOf(get().db, tenant.id),
        (l) => l.reservations === 0 && l.inFlightKeys === 0,
      );
      expect(ledger).toEqual(settled(0));
      // The same key works again at once, and the retry is stored and charged once.
      server.queue = [{ kind: 'reply', text: 'Jetzt vollständig.' }];
      const retry = await sendChat(
        get(),
        tenant,
        bot.id,
        { message: 'Hallo' },
        { 'idempotency-key': 'k-hangup' },
      );
      expect(retry.statusCode).toBe(200);
      expect(await ledgerOf(get().db, tenant.id)).toEqual(settled(1));
    });

    it('a client that hangs up while the model keeps streaming gets nothing stored', async () => {
      const tenant = await buildTenant(get().ctx, { quota: 5 });
      const bot = await tenant.bot();
      // The model answers in full, a moment after the client has gone.
      server.queue = [{ kind: 'delay', ms: 0, text: 'Eins zwei drei vier fünf sechs sieben acht neun zehn' }];
      await hangUpAfterFirstDelta(get(), tenant, bot.id, 'k-hangup-2');
      // The turn is over once its reservation and key are settled, stored or given back.
      const ledger = await eventually(
        () => ledgerOf(get().db, tenant.id),
        (l) => l.reservations === 0 && l.inFlightKeys === 0,
      );
      // Either the reply was complete before the hang-up reached the server (stored and
      // charged as one exchange) or nothing was kept: never a partial or uncounted one.
      expect([settled(0), settled(1)]).toContainEqual(ledger);
    });
  });
}
