import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import type { AppContext } from '../../src/shared/context.js';
import { migrate } from '../../src/db/migrate.js';
import { pendingReleases } from '../../src/modules/chat/release.js';
import { FakeModelServer } from '../chat/fake-model-server.js';
import { chatUrl } from '../chat/helpers.js';
import { ledgerOf, settled } from '../chat/ledger.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { PgCluster, sleep, waitFor } from './infra.js';

const CONNECT_TIMEOUT_MS = 1000;
const STATEMENT_TIMEOUT_MS = 2000;

describe('PostgreSQL outages (own cluster)', () => {
  const cluster = new PgCluster();
  const model = new FakeModelServer();
  const logs: Record<string, unknown>[] = [];
  let ctx: AppContext;
  let app: FastifyInstance;
  let tenant: TenantFixture;
  let botId: string;

  beforeAll(async () => {
    await Promise.all([cluster.create(), model.start()]);
    model.fallback = { kind: 'delay', ms: 150, text: 'Antwort unter Last.' };
    const config = testConfig({
      DATABASE_URL: cluster.url,
      DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      MODEL_PROVIDER: 'openai',
      OPENAI_BASE_URL: `${model.url}/v1`,
      MODEL_TIMEOUT_MS: '2000',
      CHAT_RATE_LIMIT_MAX: '100000',
      LOG_LEVEL: 'info',
    });
    ctx = await createContext(config);
    await migrate(ctx.db);
    app = await buildApp(ctx, {
      logStream: { write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>) },
    });
    await app.ready();
    tenant = await buildTenant(ctx, { quota: 100_000 });
    botId = (await tenant.bot()).id;
  });

  afterAll(async () => {
    await app?.close();
    await ctx?.close();
    await model.stop();
    await cluster.drop();
  });

  const send = (key: string) =>
    app.inject({
      method: 'POST',
      url: chatUrl(botId),
      headers: { ...tenant.keyHeaders, 'content-type': 'application/json', 'idempotency-key': key },
      payload: { message: `Frage ${key}` },
    });

  /** Every 200 has its exchange stored, nothing else is; quota counter = stored exchanges; no key stuck. */
  async function assertConsistent(answered: Map<string, string>) {
    await waitFor(async () => pendingReleases() === 0, 15_000, 'pending releases');
    const ledger = await ledgerOf(ctx.db, tenant.id);
    expect(ledger).toEqual(settled(answered.size));
    const stored = await ctx.db.query<{ id: string; message_count: number }>(
      'SELECT id, message_count FROM conversations WHERE tenant_id = $1',
      [tenant.id],
    );
    expect(new Set(stored.map((c) => c.id))).toEqual(new Set(answered.values()));
    expect(stored.every((c) => c.message_count === 2)).toBe(true);
  }

  it('restart under chat load: 503 with Retry-After during the outage, nothing lost, nothing stuck, one log line each way', async () => {
    const answered = new Map<string, string>();
    const failedKeys: string[] = [];
    const statuses = new Map<number, number>();
    let running = true;
    let restartedAt = 0;
    let firstAnswerAfterRestart = 0;
    const worker = async () => {
      while (running) {
        const key = randomUUID();
        const res = await send(key);
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        if (res.statusCode === 200) {
          answered.set(key, res.json().conversation_id);
          if (restartedAt && !firstAnswerAfterRestart) firstAnswerAfterRestart = Date.now();
        } else {
          expect(res.statusCode).toBe(503);
          expect(res.headers['retry-after']).toBeDefined();
          expect(res.json()).toEqual({ error: 'Dienst vorübergehend nicht verfügbar' });
          failedKeys.push(key);
          await sleep(50);
        }
      }
    };
    const workers = Array.from({ length: 8 }, worker);
    // Load flows, then the database goes away until every worker has met the outage twice.
    await waitFor(async () => answered.size >= 40, 30_000, '40 answers under load');
    await cluster.stop();
    const failedBefore = failedKeys.length;
    await waitFor(
      async () => failedKeys.length >= failedBefore + 16,
      30_000,
      '16 refusals during the outage',
    );
    await cluster.start();
    restartedAt = Date.now();
    await waitFor(async () => firstAnswerAfterRestart > 0, 30_000, 'the first answer after the restart');
    const answeredAtRecovery = answered.size;
    await waitFor(
      async () => answered.size >= answeredAtRecovery + 20,
      30_000,
      '20 answers after the restart',
    );
    running = false;
    await Promise.all(workers);

    const recoveryMs = firstAnswerAfterRestart - restartedAt;
    console.log(`restart under load: statuses ${JSON.stringify([...statuses])}, recovery ${recoveryMs} ms`);
    expect([...statuses.keys()].sort()).toEqual([200, 503]);
    expect(recoveryMs).toBeLessThan(5000);
    await assertConsistent(answered);

    // A key whose request failed in the outage is free again: the retry is answered, once.
    const retried = failedKeys.at(-1)!;
    const retry = await send(retried);
    expect(retry.statusCode).toBe(200);
    answered.set(retried, retry.json().conversation_id);
    await assertConsistent(answered);

    expect(logs.filter((l) => l.msg === 'database unavailable')).toHaveLength(1);
    expect(logs.filter((l) => l.msg === 'database available again')).toHaveLength(1);
    expect(logs.filter((l) => l.msg === 'request failed')).toHaveLength(0);
    // Nothing else at warn or above, and no stack trace anywhere.
    const loud = logs.filter((l) => Number(l.level) >= 40 && l.msg !== 'database unavailable');
    expect(loud.map((l) => l.msg)).toEqual([]);
    expect(logs.filter((l) => JSON.stringify(l).includes('"stack"'))).toEqual([]);
  });

  it('frozen database: chat and /ready answer 503 within the timeouts, and recover when it thaws', async () => {
    const base = (await ledgerOf(ctx.db, tenant.id)).exchanges;
    expect((await send(randomUUID())).statusCode).toBe(200);

    await cluster.freeze();
    try {
      let started = Date.now();
      const chat = await send(randomUUID());
      const chatMs = Date.now() - started;
      expect(chat.statusCode).toBe(503);
      expect(chatMs).toBeLessThan(STATEMENT_TIMEOUT_MS + CONNECT_TIMEOUT_MS + 3000);

      started = Date.now();
      const ready = await app.inject({ url: '/ready' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ status: 'unavailable', missing: ['database'] });
      expect(Date.now() - started).toBeLessThan(3000);
      console.log(
        `frozen database: chat 503 after ${chatMs} ms, /ready 503 after ${Date.now() - started} ms`,
      );
    } finally {
      await cluster.thaw();
    }
    const recoveryMs = await waitFor(
      async () => (await app.inject({ url: '/ready' })).statusCode === 200,
      20_000,
      'ready',
    );
    const after = await send(randomUUID());
    expect(after.statusCode).toBe(200);
    console.log(`frozen database: ready again ${recoveryMs} ms after thawing`);
    await waitFor(async () => pendingReleases() === 0, 15_000, 'pending releases');
    const ledger = await ledgerOf(ctx.db, tenant.id);
    expect(ledger).toEqual(settled(base + 2));
  });
});
