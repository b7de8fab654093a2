import { expect, it } from 'vitest';
import { startApp, stopApp, type TestApp } from '../helpers/app.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { RecordingModel, useModel } from './fixtures.js';
import { sendChat, usageOf } from './helpers.js';

async function counts(t: TestApp, tenantId: string) {
  const [row] = await t.db.query<{ conversations: number; messages: number }>(
    `SELECT (SELECT count(*)::int FROM conversations WHERE tenant_id = $1) AS conversations,
            (SELECT count(*)::int FROM messages WHERE tenant_id = $1) AS messages`,
    [tenantId],
  );
  return row!;
}

describeApp('chat quota under concurrency', (get) => {
  it('lets exactly K of N parallel requests through and keeps the counters consistent', async () => {
    const K = 5;
    const N = 16;
    const tenant = await buildTenant(get().ctx, { quota: K });
    const bot = await tenant.bot();
    const results = await Promise.all(
      Array.from({ length: N }, (_, i) => sendChat(get(), tenant, bot.id, { message: `Frage ${i}` })),
    );
    const ok = results.filter((r) => r.statusCode === 200);
    const refused = results.filter((r) => r.statusCode === 429);
    expect(ok).toHaveLength(K);
    expect(refused).toHaveLength(N - K);
    refused.forEach((r) => expect(r.json()).toEqual({ error: 'Nachrichtenlimit erreicht' }));
    // Every success saw a different remaining count: K-1 … 0.
    expect(ok.map((r) => r.json().quota_remaining).sort()).toEqual([0, 1, 2, 3, 4]);
    const usage = await usageOf(get(), tenant.id);
    expect(usage.messages_used).toBe(K);
    expect(usage.tokens_used).toBe(ok.reduce((sum, r) => sum + (r.json().tokens_used as number), 0));
    expect(await counts(get(), tenant.id)).toEqual({ conversations: K, messages: 2 * K });
  });

  it('holds across two app instances sharing the database', async () => {
    const second = await startApp(get().database);
    try {
      const K = 4;
      const tenant = await buildTenant(get().ctx, { quota: K });
      const bot = await tenant.bot();
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          sendChat(i % 2 ? second : get(), tenant, bot.id, { message: `F${i}` }),
        ),
      );
      expect(results.filter((r) => r.statusCode === 200)).toHaveLength(K);
      expect(results.filter((r) => r.statusCode === 429)).toHaveLength(12 - K);
      expect((await usageOf(get(), tenant.id)).messages_used).toBe(K);
      expect(await counts(get(), tenant.id)).toEqual({ conversations: K, messages: 2 * K });
    } finally {
      await stopApp(second);
    }
  });

  it('gives failed requests’ reservations back, so the quota is not lost to failures', async () => {
    const { ctx } = get();
    const K = 3;
    const tenant = await buildTenant(ctx, { quota: K });
    const bot = await tenant.bot();
    const model = new RecordingModel();
    let calls = 0;
    const ordinary = model.answer;
    model.answer = async (request) => {
      calls += 1;
      if (calls % 2 === 0) throw new Error('model broke');
      return ordinary(request);
    };
    const restore = useModel(ctx, model);
    try {
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => sendChat(get(), tenant, bot.id, { message: `F${i}` })),
      );
      const ok = results.filter((r) => r.statusCode === 200).length;
      const failed = results.filter((r) => r.statusCode === 500).length;
      expect(ok + failed + results.filter((r) => r.statusCode === 429).length).toBe(6);
      expect((await usageOf(get(), tenant.id)).messages_used).toBe(ok);
      expect(await counts(get(), tenant.id)).toEqual({ conversations: ok, messages: 2 * ok });
    } finally {
      restore();
    }
    // Whatever failed is available again.
    const remaining = K - (await usageOf(get(), tenant.id)).messages_used;
    for (let i = 0; i < remaining; i++) {
      expect((await sendChat(get(), tenant, bot.id, { message: 'noch' })).statusCode).toBe(200);
    }
    expect((await sendChat(get(), tenant, bot.id, { message: 'zu viel' })).statusCode).toBe(429);
  });
});
