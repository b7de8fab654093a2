import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import type { AppContext } from '../../src/shared/context.js';
import { memoryCoordination } from '../../src/coordination/index.js';
import {
  createEmbeddings,
  guardedEmbeddings,
  httpEmbeddings,
  type EmbeddingsLog,
} from '../../src/modules/knowledge/embeddings.js';
import { searchKnowledge } from '../../src/modules/knowledge/search.js';
import { getEntry } from '../../src/modules/knowledge/service.js';
import { backfillPass, runningBackfill } from '../../src/modules/knowledge/vectors.js';
import { describeEachBackend } from '../helpers/db.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { startFakeEmbeddings, type FakeEmbeddingsServer } from './fake-embeddings.js';
import { addEntries } from './helpers.js';

function memoryLog(): EmbeddingsLog & { lines: { level: string; details: object; message: string }[] } {
  const lines: { level: string; details: object; message: string }[] = [];
  return {
    lines,
    warn: (details, message) => lines.push({ level: 'warn', details, message }),
    info: (details, message) => lines.push({ level: 'info', details, message }),
  };
}

describe('embeddings client', () => {
  let fake: FakeEmbeddingsServer;
  beforeAll(async () => {
    fake = await startFakeEmbeddings();
  });
  afterAll(async () => {
    await fake.close();
  });

  it('gives up after the configured timeout', async () => {
    fake.delayMs = 2000;
    const client = httpEmbeddings({ baseUrl: fake.url, model: 'fake', timeoutMs: 150 });
    const started = Date.now();
    await expect(client.embed(['Parkplatz'])).rejects.toThrow(/unreachable: TimeoutError/);
    expect(Date.now() - started).toBeLessThan(1500);
    fake.delayMs = 0;
  });

  it('takes the timeout and breaker settings from the environment', () => {
    const config = testConfig({
      EMBEDDINGS_BASE_URL: fake.url,
      EMBEDDINGS_TIMEOUT_MS: '1234',
      EMBEDDINGS_BREAKER_MS: '5000',
    });
    expect(config.knowledge.embeddingsTimeoutMs).toBe(1234);
    expect(config.knowledge.embeddingsBreakerMs).toBe(5000);
    expect(testConfig().knowledge.embeddingsTimeoutMs).toBe(5000);
    expect(createEmbeddings(config)).not.toBeNull();
    expect(() => testConfig({ EMBEDDINGS_TIMEOUT_MS: 'soon' })).toThrow(/EMBEDDINGS_TIMEOUT_MS/);
  });

  it('logs every failure without the key and stops calling a failing endpoint for a while', async () => {
    // A server of its own: no late request of another test can take one of its failures.
    const fake = await startFakeEmbeddings();
    let now = 1_000_000;
    const log = memoryLog();
    const client = guardedEmbeddings(
      httpEmbeddings({ baseUrl: fake.url, apiKey: 'emb-secret', model: 'fake' }),
      {
        breakerMs: 30_000,
        log,
        now: () => now,
      },
    );
    fake.requests.length = 0;
    fake.failNext = 3;
    for (let i = 0; i < 3; i += 1) await expect(client.embed(['Hund'])).rejects.toThrow(/HTTP 503/);
    expect(fake.requests).toHaveLength(3);
    expect(log.lines.filter((l) => l.message === 'embeddings request failed')).toHaveLength(3);
    expect(JSON.stringify(log.lines)).not.toContain('emb-secret');
    expect(client.open).toBe(true);
    // Open: the endpoint is not called at all, the call fails at once.
    await expect(client.embed(['Hund'])).rejects.toThrow(/circuit breaker open/);
    expect(fake.requests).toHaveLength(3);
    // After the pause one call tries again; it succeeds and closes the breaker.
    now += 30_001;
    expect(await client.embed(['Hund'])).toHaveLength(1);
    expect(fake.requests).toHaveLength(4);
    expect(client.open).toBe(false);
    expect(log.lines.at(-1)?.message).toBe('embeddings endpoint back');
    await fake.close();
  });
});

describeEachBackend('vectors of entries stored while the endpoint failed', (get) => {
  let ctx: AppContext;
  let tenant: TenantFixture;
  let fake: FakeEmbeddingsServer;

  beforeAll(async () => {
    ctx = await createContext(testConfig(), { db: get().db, coordination: memoryCoordination() });
    tenant = await buildTenant(ctx);
    fake = await startFakeEmbeddings();
  });
  afterAll(async () => {
    await fake.close();
  });

  it('flags the entry vectors_missing, then fills the vectors in the scheduled pass once the endpoint answers', async () => {
    const log = memoryLog();
    const embeddings = guardedEmbeddings(httpEmbeddings({ baseUrl: fake.url, model: 'fake' }), {
      breakerMs: 60_000,
      log,
    });
    embeddings.needsBackfill = false;
    const bot = await tenant.bot();
    fake.failNext = 1;
    const [parking] = await addEntries(
      ctx,
      tenant.id,
      bot.id,
      [{ title: 'Anreise', content: 'Parkplätze für Autos gibt es hinter dem Haus.' }],
      embeddings,
    );
    expect(log.lines[0]?.message).toBe('embeddings request failed');
    const stored = await getEntry(get().db, tenant.id, { botId: bot.id }, parking!);
    expect(stored.vectors_missing).toBe(true);
    const query = 'Wo kann ich mein Fahrzeug abstellen?';
    // The query vector succeeds, but a search (the hot read path) never starts a write.
    await searchKnowledge(get().db, tenant.id, { botId: bot.id, query, embeddings });
    expect(runningBackfill(embeddings)).toBeUndefined();
    expect((await getEntry(get().db, tenant.id, { botId: bot.id }, parking!)).vectors_missing).toBe(true);
    // The scheduled pass fills the vectors.
    await backfillPass(get().db, embeddings);
    expect((await getEntry(get().db, tenant.id, { botId: bot.id }, parking!)).vectors_missing).toBe(false);
    const chunks = await get().db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM knowledge_chunks WHERE entry_id = $1 AND embedding IS NOT NULL',
      [parking],
    );
    expect(chunks[0]!.n).toBe(1);
    const hits = await searchKnowledge(get().db, tenant.id, { botId: bot.id, query, embeddings });
    expect(hits[0]?.entryId).toBe(parking);
    expect(hits[0]!.score).toBeGreaterThanOrEqual(0.4);
  });

  it('shows vectors_missing on the entry in the API', async () => {
    const { buildApp } = await import('../../src/app.js');
    const app = await buildApp(ctx);
    const bot = await tenant.bot();
    const created = await app.inject({
      method: 'POST',
      url: `/api/bots/${bot.id}/knowledge`,
      headers: { ...tenant.owner.headers, 'x-requested-with': 'parley' },
      payload: { title: 'Tiere', content: 'Hunde sind erlaubt.' },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().vectors_missing).toBe(false);
    await app.close();
  });
});
