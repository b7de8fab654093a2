import bcrypt from 'bcrypt';
import { describe, expect, it, vi } from 'vitest';
import { testConfig } from '../../src/config.js';
import { memoryCoordination, redisCoordination } from '../../src/coordination/index.js';
import type { Database } from '../../src/db/database.js';
import { ApiKeyService, generateApiKey } from '../../src/modules/auth/api-keys.js';
import { insertApiKey } from '../../src/modules/auth/repository.js';
import { createTenant } from '../../src/modules/tenants/service.js';
import { describeEachBackend } from '../helpers/db.js';
import { waitFor } from '../helpers/net.js';

const auth = testConfig().auth;

function service(db: Database, now?: () => number, coordination = memoryCoordination()) {
  return new ApiKeyService(db, coordination, {
    bcryptCost: auth.bcryptCost,
    cacheTtlSeconds: 300,
    cacheMax: 100,
    now,
  });
}

async function tenant(db: Database): Promise<string> {
  const { tenant: row } = await db.transaction((tx) => createTenant(tx, { name: 'Keys' }));
  return row.id;
}

async function rejection(promise: Promise<unknown>): Promise<{ statusCode: number; error: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { statusCode: number; error: string };
  }
  throw new Error('expected a rejection');
}

describe('generateApiKey', () => {
  it('is svc_ followed by 40 URL-safe characters, different every time', () => {
    const keys = new Set(Array.from({ length: 50 }, generateApiKey));
    expect(keys.size).toBe(50);
    for (const key of keys) expect(key).toMatch(/^svc_[A-Za-z0-9_-]{40}$/);
  });
});

describeEachBackend('API keys', (get) => {
  it('stores only the 12-character prefix and a bcrypt hash', async () => {
    const keys = service(get().db);
    const tenantId = await tenant(get().db);
    const { key, record } = await keys.issue({ tenantId });
    expect(record.key_prefix).toBe(key.slice(0, 12));
    const [row] = await get().db.query<Record<string, unknown>>('SELECT * FROM api_keys WHERE id = $1', [
      record.id,
    ]);
    expect(JSON.stringify(row)).not.toContain(key);
    expect(await bcrypt.compare(key, String(row!.key_hash))).toBe(true);
    expect(record).not.toHaveProperty('key_hash');
  });

  it('verifies in the order of the specification with its exact texts', async () => {
    const keys = service(get().db);
    const tenantId = await tenant(get().db);
    const { key } = await keys.issue({ tenantId });
    expect(await keys.verify(key)).toMatchObject({ tenantId });
    expect(await rejection(keys.verify(undefined))).toMatchObject({
      statusCode: 401,
      error: 'API Key erforderlich',
    });
    expect(await rejection(keys.verify(''))).toMatchObject({ error: 'API Key erforderlich' });
    expect(await rejection(keys.verify('svc_unknownprefix-and-more'))).toMatchObject({
      statusCode: 401,
      error: 'Ungültiger API Key',
    });
    const samePrefixWrongSecret = key.slice(0, 12) + 'x'.repeat(key.length - 12);
    expect(await rejection(keys.verify(samePrefixWrongSecret))).toMatchObject({
      error: 'Ungültiger API Key',
    });
    expect(await rejection(keys.verify('not-a-key'))).toMatchObject({ error: 'Ungültiger API Key' });
  });

  it('refuses an inactive key as invalid and an expired key as expired', async () => {
    const tenantId = await tenant(get().db);
    const { key, record } = await service(get().db).issue({
      tenantId,
      expiresAt: new Date(Date.now() + 60_000),
    });
    await get().db.query('UPDATE api_keys SET expires_at = now() - interval $$1 minute$$ WHERE id = $1', [
      record.id,
    ]);
    expect(await rejection(service(get().db).verify(key))).toMatchObject({
      statusCode: 401,
      error: 'API Key abgelaufen',
    });
    await get().db.query('UPDATE api_keys SET is_active = false WHERE id = $1', [record.id]);
    // Inactive is checked before expiry.
    expect(await rejection(service(get().db).verify(key))).toMatchObject({ error: 'Ungültiger API Key' });
  });

  it('compares against every key that shares the prefix', async () => {
    const db = get().db;
    const prefix = 'svc_SHARED12';
    const first = `${prefix}${'a'.repeat(32)}`;
    const second = `${prefix}${'b'.repeat(32)}`;
    const [t1, t2] = [await tenant(db), await tenant(db)];
    for (const [tenantId, key] of [
      [t1, first],
      [t2, second],
    ] as const) {
      await insertApiKey(db, tenantId, {
        name: null,
        keyPrefix: prefix,
        keyHash: await bcrypt.hash(key, 4),
        expiresAt: null,
        createdBy: null,
      });
    }
    const keys = service(db);
    expect((await keys.verify(first)).tenantId).toBe(t1);
    expect((await keys.verify(second)).tenantId).toBe(t2);
  });

  it('keeps one active key per tenant: a new key refuses the old one at once, even when cached', async () => {
    const keys = service(get().db);
    const tenantId = await tenant(get().db);
    const { key: oldKey } = await keys.issue({ tenantId });
    await keys.verify(oldKey);
    expect(keys.cachedCount).toBe(1);
    const { key: newKey } = await keys.issue({ tenantId });
    expect(await rejection(keys.verify(oldKey))).toMatchObject({ error: 'Ungültiger API Key' });
    expect((await keys.verify(newKey)).tenantId).toBe(tenantId);
    const active = await get().db.query('SELECT id FROM api_keys WHERE tenant_id = $1 AND is_active', [
      tenantId,
    ]);
    expect(active).toHaveLength(1);
  });

  it('serves a cached verification without the database, but never past revocation', async () => {
    const keys = service(get().db);
    const tenantId = await tenant(get().db);
    const { key, record } = await keys.issue({ tenantId });
    await keys.verify(key);
    // The cache answers even when the row is gone from the database.
    await get().db.query('UPDATE api_keys SET key_prefix = $1 WHERE id = $2', ['svc_MOVED000', record.id]);
    expect((await keys.verify(key)).keyId).toBe(record.id);
    await keys.revoke(tenantId, record.id);
    expect(await rejection(keys.verify(key))).toMatchObject({ statusCode: 401 });
  });

  it('never serves a cached key past its expiry', async () => {
    let now = Date.now();
    const keys = service(get().db, () => now);
    const tenantId = await tenant(get().db);
    const { key } = await keys.issue({ tenantId, expiresAt: new Date(now + 10_000) });
    await keys.verify(key);
    expect(keys.cachedCount).toBe(1);
    now += 11_000;
    expect(await rejection(keys.verify(key))).toMatchObject({ error: 'API Key abgelaufen' });
  });

  it.skipIf(!process.env.REDIS_URL)(
    'with Redis connected, trusts its cache: a change made behind its back waits for a broadcast',
    async () => {
      const coordination = await redisCoordination(process.env.REDIS_URL!);
      try {
        const keys = service(get().db, undefined, coordination);
        await keys.start();
        await vi.waitUntil(() => coordination.broadcastsArrive?.() === true, { timeout: 5000 });
        expect(keys.revalidatesCachedKeys).toBe(false);
        const { key, record } = await keys.issue({ tenantId: await tenant(get().db) });
        await keys.verify(key);
        await get().db.query('UPDATE api_keys SET is_active = false WHERE id = $1', [record.id]);
        expect((await keys.verify(key)).keyId).toBe(record.id);
      } finally {
        await coordination.close();
      }
    },
  );

  it('with Redis unreachable, confirms every cached key with the database', async () => {
    const coordination = await redisCoordination('redis://127.0.0.1:1', { commandTimeoutMs: 100 });
    try {
      expect(coordination.broadcastsArrive?.()).toBe(false);
      const keys = service(get().db, undefined, coordination);
      await keys.start();
      expect(keys.revalidatesCachedKeys).toBe(true);
      const { key, record } = await keys.issue({ tenantId: await tenant(get().db) });
      await keys.verify(key);
      expect(keys.cachedCount).toBe(1);
      // No broadcast can announce this change (another process, plain SQL), yet it holds at once.
      await get().db.query('UPDATE api_keys SET is_active = false WHERE id = $1', [record.id]);
      expect(await rejection(keys.verify(key))).toMatchObject({ statusCode: 401 });
    } finally {
      await coordination.close();
    }
  });

  it.skipIf(!process.env.REDIS_URL)('broadcasts a rotation to a second instance through Redis', async () => {
    const url = process.env.REDIS_URL!;
    const [coordA, coordB] = [await redisCoordination(url), await redisCoordination(url)];
    try {
      const a = service(get().db, undefined, coordA);
      const b = service(get().db, undefined, coordB);
      await Promise.all([a.start(), b.start()]);
      const tenantId = await tenant(get().db);
      const { key: oldKey } = await a.issue({ tenantId });
      await b.verify(oldKey);
      expect(b.cachedCount).toBe(1);
      await a.issue({ tenantId });
      // Pub/sub delivery is asynchronous; it arrives within milliseconds.
      await waitFor(() => b.cachedCount === 0, 2000, 'the revocation to reach the other instance');
      expect(await rejection(b.verify(oldKey))).toMatchObject({ error: 'Ungültiger API Key' });
    } finally {
      await coordA.close();
      await coordB.close();
    }
  });
});
