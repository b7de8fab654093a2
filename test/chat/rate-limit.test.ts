import { expect, it } from 'vitest';
import { describeApp, startApp, stopApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/db.js';
import { buildTenant } from '../helpers/factories.js';
import { chatUrl, sendChat } from './helpers.js';

describeApp('chat rate limit', (get) => {
  it('sends the standard RateLimit headers and refuses the 61st request in the window', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const first = await sendChat(get(), tenant, bot.id, { message: 'Hallo' });
    expect(first.statusCode).toBe(200);
    expect(first.headers['ratelimit-limit']).toBe('60');
    expect(first.headers['ratelimit-remaining']).toBe('59');
    expect(Number(first.headers['ratelimit-reset'])).toBeGreaterThan(0);
    expect(first.headers['ratelimit-policy']).toBe('60;w=60');
    expect(Object.keys(first.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);

    // Invalid bodies count too: the limit applies before validation. 58 more make 59.
    for (let i = 0; i < 58; i++) {
      expect((await sendChat(get(), tenant, bot.id, { message: '' })).statusCode).toBe(400);
    }
    const sixtieth = await sendChat(get(), tenant, bot.id, { message: 'Hallo' });
    expect(sixtieth.statusCode).toBe(200);
    expect(sixtieth.headers['ratelimit-remaining']).toBe('0');

    const refused = await sendChat(get(), tenant, bot.id, { message: 'Hallo' });
    expect(refused.statusCode).toBe(429);
    const body = refused.json();
    expect(body.error).toBe('Rate-Limit erreicht');
    expect(body.message).toMatch(/60 Anfragen pro Minute/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['ratelimit-limit']).toBe('60');
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(refused.headers['ratelimit-policy']).toBe('60;w=60');
    expect(Object.keys(refused.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
  });

  it('counts per API key: another tenant’s key has its own window; no key is never counted', async () => {
    const a = await buildTenant(get().ctx);
    const b = await buildTenant(get().ctx);
    const botA = await a.bot();
    const botB = await b.bot();
    for (let i = 0; i < 61; i++) await sendChat(get(), a, botA.id, { message: '' });
    expect((await sendChat(get(), a, botA.id, { message: 'Hallo' })).statusCode).toBe(429);
    const other = await sendChat(get(), b, botB.id, { message: 'Hallo' });
    expect(other.statusCode).toBe(200);
    expect(other.headers['ratelimit-remaining']).toBe('59');
    // Authentication comes first: a request without a key is 401 and carries no limit headers.
    const anonymous = await get().app.inject({
      method: 'POST',
      url: chatUrl(botA.id),
      payload: { message: 'x' },
    });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['ratelimit-limit']).toBeUndefined();
  });
});

describeApp(
  'chat rate limit configured higher',
  (get) => {
    it('takes its maximum from CHAT_RATE_LIMIT_MAX', async () => {
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      const res = await sendChat(get(), tenant, bot.id, { message: '' });
      expect(res.headers['ratelimit-limit']).toBe('500');
      expect(res.headers['ratelimit-policy']).toBe('500;w=60');
    });
  },
  { env: { CHAT_RATE_LIMIT_MAX: '500' } },
);

describeEachBackend('chat rate limit shared through Redis', (get) => {
  it.skipIf(!process.env.REDIS_URL)('two instances share one limit per key', async () => {
    const one = await startApp(get(), { redis: true });
    const two = await startApp(get(), { redis: true });
    try {
      const tenant = await buildTenant(one.ctx);
      const bot = await tenant.bot();
      for (let i = 0; i < 30; i++) {
        expect((await sendChat(one, tenant, bot.id, { message: '' })).statusCode).toBe(400);
        expect((await sendChat(two, tenant, bot.id, { message: '' })).statusCode).toBe(400);
      }
      const refused = await sendChat(two, tenant, bot.id, { message: 'Hallo' });
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error).toBe('Rate-Limit erreicht');
      expect((await sendChat(one, tenant, bot.id, { message: 'Hallo' })).statusCode).toBe(429);
    } finally {
      await stopApp(one);
      await stopApp(two);
    }
  });
});
