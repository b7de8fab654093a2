import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import type { AppContext } from '../../src/shared/context.js';
import { migrate } from '../../src/db/migrate.js';
import { startApp, stopApp, type TestApp } from '../helpers/app.js';
import { openTestDatabase, type TestDatabase } from '../helpers/db.js';
import { buildTenant } from '../helpers/factories.js';

const BIN = join(import.meta.dirname, '../../bin/parley.js');

/** A request that only an accepted API key answers with 200. */
const listBots = (app: TestApp, key: string) =>
  app.app.inject({ method: 'GET', url: '/v1/bots', headers: { authorization: `Bearer ${key}` } });

/** `parley key create` in a process of its own, as an operator runs it next to the server. */
async function rotateWithCli(tenantId: string, env: Record<string, string>): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [BIN, 'key', 'create', '--tenant', tenantId, '--json'],
    { env: { ...process.env, BCRYPT_COST: '4', REDIS_URL: '', DATABASE_URL: '', ...env } },
  );
  return (JSON.parse(stdout) as { key: string }).key;
}

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

  it('a key rotated with the CLI is refused on the next request', async () => {
    const tenant = await buildTenant(first.ctx);
    expect((await listBots(first, tenant.apiKey)).statusCode).toBe(200);
    const next = await rotateWithCli(tenant.id, { DATABASE_URL: database.url! });
    expect((await listBots(first, tenant.apiKey)).statusCode).toBe(401);
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

/**
 * PGlite without Redis: the CLI cannot open the data directory while the server holds it, so a
 * key can only change through the running server, which evicts it from its own cache at once.
 */
describe('[pglite] a key rotated with the CLI while the server runs', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-key-cli-'));
  let ctx: AppContext;

  beforeAll(async () => {
    ctx = await createContext(testConfig({ PARLEY_DATA_DIR: dataDir, DATABASE_URL: '' }));
    await migrate(ctx.db);
  });
  afterAll(async () => {
    await ctx?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the CLI is refused and the key is unchanged; a rotation through the server ends it at once', async () => {
    const tenant = await buildTenant(ctx);
    expect((await ctx.apiKeys.verify(tenant.apiKey)).tenantId).toBe(tenant.id);
    const refused = await rotateWithCli(tenant.id, { PARLEY_DATA_DIR: dataDir }).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(refused?.code).toBe(1);
    expect(`${refused?.stdout}${refused?.stderr}`).toContain(`is in use by process ${process.pid}`);
    expect((await ctx.apiKeys.verify(tenant.apiKey)).tenantId).toBe(tenant.id);
    await ctx.apiKeys.issue({ tenantId: tenant.id });
    await expect(ctx.apiKeys.verify(tenant.apiKey)).rejects.toThrow();
  });
});
