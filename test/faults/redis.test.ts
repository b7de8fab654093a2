import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import type { AppContext } from '../../src/shared/context.js';
import { migrate } from '../../src/db/migrate.js';
import { openPglite } from '../../src/db/pglite.js';
import { chatUrl } from '../chat/helpers.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { RedisServer, waitFor } from './infra.js';

const LIMIT = 5;
const COMMAND_TIMEOUT_MS = 200;

describe('Redis outages (own redis-server): the rate limit fails open with local counters', () => {
  const redis = new RedisServer();
  let ctx: AppContext;
  let app: FastifyInstance;
  let tenant: TenantFixture;
  let botId: string;

  beforeAll(async () => {
    await redis.start();
    const { db } = await openPglite();
    await migrate(db);
    const config = testConfig({
      REDIS_URL: redis.url,
      REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
      CHAT_RATE_LIMIT_MAX: String(LIMIT),
    });
    ctx = await createContext(config, { db });
    app = await buildApp(ctx);
    await app.ready();
    tenant = await buildTenant(ctx);
    botId = (await tenant.bot()).id;
  });
  afterAll(async () => {
    await app?.close();
    await ctx?.close();
    await redis.stop();
  });

  /** Sends `n` chat requests; returns their statuses and the slowest one's time. */
  async function burst(n: number) {
    const statuses: number[] = [];
    let slowest = 0;
    for (let i = 0; i < n; i++) {
      const started = Date.now();
      const res = await app.inject({
        method: 'POST',
        url: chatUrl(botId),
        headers: { ...tenant.keyHeaders, 'content-type': 'application/json' },
        payload: { message: 'Hallo' },
      });
      slowest = Math.max(slowest, Date.now() - started);
      statuses.push(res.statusCode);
    }
    return { statuses, slowest };
  }

  it('counts in Redis while it is up', async () => {
    const { statuses } = await burst(3);
    expect(statuses).toEqual([200, 200, 200]);
    expect(Number(await ctx.coordination.redis!.dbsize())).toBeGreaterThan(0);
  });

  it('Redis stopped: never 500, never slow; this instance keeps limiting on its own; /ready names redis', async () => {
    await redis.stop();
    const { statuses, slowest } = await burst(LIMIT + 2);
    console.log(`redis stopped: statuses ${statuses.join(',')}, slowest ${slowest} ms`);
    expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(200));
    expect(statuses.slice(LIMIT)).toEqual([429, 429]);
    expect(slowest).toBeLessThan(1000);
    const ready = await app.inject({ url: '/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json().missing).toEqual(['redis']);
  });

  it('Redis back (without persistence): the shared counters start from zero again', async () => {
    await redis.start();
    const recoveryMs = await waitFor(
      async () => (await app.inject({ url: '/ready' })).statusCode === 200,
      15_000,
      'redis ready',
    );
    console.log(`redis restarted: ready after ${recoveryMs} ms`);
    expect((await burst(1)).statuses).toEqual([200]);
    expect(await ctx.coordination.redis!.dbsize()).toBeGreaterThan(0);
  });

  it('Redis frozen: each request waits at most the command timeout', async () => {
    redis.freeze();
    try {
      const { statuses, slowest } = await burst(3);
      console.log(`redis frozen: statuses ${statuses.join(',')}, slowest ${slowest} ms`);
      expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
      expect(slowest).toBeLessThan(COMMAND_TIMEOUT_MS + 800);
    } finally {
      redis.thaw();
    }
  });
});
