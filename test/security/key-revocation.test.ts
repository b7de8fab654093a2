import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, stopApp, type TestApp } from '../helpers/app.js';
import { openTestDatabase, type TestDatabase } from '../helpers/db.js';
import { buildTenant } from '../helpers/factories.js';

/**
 * Two server processes on one PostgreSQL database without Redis (two app contexts here, each
 * with its own key cache and no broadcast between them): a key rotated or revoked through the
 * second (as the CLI does) is refused by the first on its next request. PGlite is not part of
 * this: only one process can open its data directory, and the CLI refuses while the server runs.
 */
const run = process.env.TEST_DATABASE_URL ? describe : describe.skip;

run('[postgres] key rotation and revocation reach another process without Redis', () => {
  let database: TestDatabase;
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    database = await openTestDatabase('postgres');
    first = await startApp(database);
    second = await startApp(database);
  });
  afterAll(async () => {
    await stopApp(first);
    await stopApp(second);
    await database.close();
  });

  const listBots = (app: TestApp, key: string) =>
    app.app.inject({ method: 'GET', url: '/v1/bots', headers: { authorization: `Bearer ${key}` } });

  it('revalidates cached keys only where no broadcast reaches it', () => {
    expect(first.ctx.apiKeys.revalidatesCachedKeys).toBe(true);
  });

  it('a key rotated through the second process is refused by the first on the next request', async () => {
    const tenant = await buildTenant(first.ctx);
    expect((await listBots(first, tenant.apiKey)).statusCode).toBe(200);
    expect(first.ctx.apiKeys.cachedCount).toBeGreaterThan(0);
    const { key: next } = await second.ctx.apiKeys.issue({ tenantId: tenant.id });
    const old = await listBots(first, tenant.apiKey);
    expect(old.statusCode).toBe(401);
    expect((await listBots(first, next)).statusCode).toBe(200);
  });

  it('a key revoked through the second process is refused by the first, also on the chat endpoint', async () => {
    const tenant = await buildTenant(first.ctx);
    const bot = await tenant.bot();
    const chat = () =>
      first.app.inject({
        method: 'POST',
        url: `/api/bot-chat/${bot.id}/chat`,
        headers: tenant.keyHeaders,
        payload: { message: 'Hallo' },
      });
    expect((await chat()).statusCode).toBe(200);
    expect(await second.ctx.apiKeys.revoke(tenant.id, tenant.apiKeyId)).toBe(true);
    const refused = await chat();
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({ error: 'Ungültiger API Key' });
  });

  it('an expiry set by another process holds at once', async () => {
    const tenant = await buildTenant(first.ctx);
    expect((await listBots(first, tenant.apiKey)).statusCode).toBe(200);
    await second.db.query("UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1", [
      tenant.apiKeyId,
    ]);
    expect((await listBots(first, tenant.apiKey)).statusCode).toBe(401);
  });
});
