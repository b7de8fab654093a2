import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { sendChat } from '../chat/helpers.js';

describeApp('answers while the database is unreachable', (get) => {
  it('chat: 503 with the German text and Retry-After; other endpoints: service_unavailable; health stays 200', async () => {
    const { ctx, app } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    ctx.health.database.markDown(new Error('test outage'));
    try {
      const chat = await sendChat(get(), tenant, bot.id, { message: 'Hallo' });
      expect(chat.statusCode).toBe(503);
      expect(chat.headers['retry-after']).toBe('5');
      expect(chat.json()).toEqual({ error: 'Dienst vorübergehend nicht verfügbar' });
      const bots = await app.inject({ url: '/api/bots', headers: tenant.owner.headers });
      expect(bots.statusCode).toBe(503);
      expect(bots.headers['retry-after']).toBe('5');
      expect(bots.json()).toMatchObject({ error: 'service_unavailable' });
      expect((await app.inject({ url: '/health' })).statusCode).toBe(200);
    } finally {
      ctx.health.database.markUp();
    }
    expect((await sendChat(get(), tenant, bot.id, { message: 'Hallo' })).statusCode).toBe(200);
  });

  it('a connection error thrown by a query becomes the same 503, not a 500', async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const query = ctx.db.query.bind(ctx.db);
    ctx.db.query = (async (sql: string, params?: readonly unknown[]) => {
      if (sql.includes('WITH bot AS')) {
        throw Object.assign(new Error('Connection terminated unexpectedly'), { code: undefined });
      }
      return query(sql, params);
    }) as typeof ctx.db.query;
    try {
      const res = await sendChat(get(), tenant, bot.id, { message: 'Hallo' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ error: 'Dienst vorübergehend nicht verfügbar' });
      expect(res.headers['retry-after']).toBe('5');
    } finally {
      ctx.db.query = query;
    }
  });
});
