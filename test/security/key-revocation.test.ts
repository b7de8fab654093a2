import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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

/**
 * The same with the broadcast that production uses on PostgreSQL without Redis: a trigger
 * announces every key change over LISTEN/NOTIFY, so the first process evicts the key at once
 * and a cache hit costs no statement; while the listening connection is down it confirms each
 * hit with the database again, and after the gap it forgets every cached key.
 */
run('[postgres] key changes announced over LISTEN/NOTIFY', () => {
  let database: TestDatabase;
  let first: TestApp;
  let second: TestApp;
  const statements: string[] = [];

  beforeAll(async () => {
    database = await openTestDatabase('postgres');
    first = await startApp(database, { postgresBroadcast: true });
    second = await startApp(database, { postgresBroadcast: true });
    const query = database.db.query.bind(database.db);
    database.db.query = ((sql: string, params?: readonly unknown[]) => {
      statements.push(sql);
      return query(sql, params);
    }) as typeof database.db.query;
  });
  afterAll(async () => {
    await stopApp(first);
    await stopApp(second);
    await database.close();
  });

  const listBots = (app: TestApp, key: string) =>
    app.app.inject({ method: 'GET', url: '/v1/bots', headers: { authorization: `Bearer ${key}` } });
  const keyReads = () => statements.filter((sql) => sql.includes('FROM api_keys')).length;
  const eventually = (condition: () => Promise<boolean>) =>
    vi.waitUntil(condition, { timeout: 5000, interval: 20 });

  it('a cached key is used without reading api_keys, and a rotation elsewhere ends it at once', async () => {
    expect(first.ctx.apiKeys.revalidatesCachedKeys).toBe(false);
    const tenant = await buildTenant(first.ctx);
    expect((await listBots(first, tenant.apiKey)).statusCode).toBe(200);
    const before = keyReads();
    expect((await listBots(first, tenant.apiKey)).statusCode).toBe(200);
    expect(keyReads()).toBe(before);

    const { key: next } = await second.ctx.apiKeys.issue({ tenantId: tenant.id });
    await eventually(async () => (await listBots(first, tenant.apiKey)).statusCode === 401);
    expect(await listBots(first, tenant.apiKey)).toMatchObject({ statusCode: 401 });
    expect((await listBots(first, next)).statusCode).toBe(200);
  });

  it('an expiry set by plain SQL reaches the cache through the trigger', async () => {
    const tenant = await buildTenant(first.ctx);
    expect((await listBots(first, tenant.apiKey)).statusCode).toBe(200);
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query("UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1", [
      tenant.apiKeyId,
    ]);
    await admin.end();
    await eventually(async () => (await listBots(first, tenant.apiKey)).statusCode === 401);
  });

  it('without its listening connection it confirms every hit, and after the gap it forgets its cache', async () => {
    const tenant = await buildTenant(first.ctx);
    expect((await listBots(first, tenant.apiKey)).statusCode).toBe(200);
    expect(first.ctx.apiKeys.cachedCount).toBeGreaterThan(0);
    // Ends every listening connection of the test database (both processes').
    await database.db.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = current_database() AND query = 'LISTEN parley_broadcast'`,
      [],
    );
    await eventually(async () => first.ctx.apiKeys.revalidatesCachedKeys);
    const before = keyReads();
    expect((await listBots(first, tenant.apiKey)).statusCode).toBe(200);
    expect(keyReads()).toBe(before + 1);
    await eventually(async () => !first.ctx.apiKeys.revalidatesCachedKeys);
    expect(first.ctx.apiKeys.cachedCount).toBe(0);
  });
});
