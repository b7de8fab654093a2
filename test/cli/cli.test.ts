import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { memoryCoordination } from '../../src/coordination/index.js';
import { acquireDataDirLock } from '../../src/db/lock.js';
import { openPglite } from '../../src/db/pglite.js';
import { describeEachBackend } from '../helpers/db.js';

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../bin/parley.js');

async function parley(args: string[], env: Record<string, string>) {
  const { stdout } = await run(process.execPath, [BIN, ...args], {
    env: { ...process.env, BCRYPT_COST: '4', ...env },
  });
  return stdout.trim();
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describeEachBackend('parley CLI', (get) => {
  it('provisions a sandbox tenant with a trial, a user and an expiring key, as JSON', async () => {
    let env: Record<string, string>;
    let dataDir: string | undefined;
    if (get().backend === 'postgres') {
      env = { DATABASE_URL: get().url! };
    } else {
      dataDir = mkdtempSync(join(tmpdir(), 'parley-cli-'));
      dirs.push(dataDir);
      env = { PARLEY_DATA_DIR: dataDir, DATABASE_URL: '' };
    }
    const tenant = JSON.parse(
      await parley(
        [
          'tenant',
          'create',
          '--name',
          'CLI GmbH',
          '--plan',
          'sandbox',
          '--trial-ends',
          '2030-01-15',
          '--json',
        ],
        env,
      ),
    );
    expect(tenant).toMatchObject({ name: 'CLI GmbH', plan: 'sandbox', subscription_status: 'trial' });
    expect(tenant.trial_ends_at).toMatch(/^2030-01-15/);
    const user = JSON.parse(
      await parley(
        [
          'user',
          'create',
          '--tenant',
          tenant.id,
          '--email',
          'cli@example.test',
          '--password',
          'secret-123',
          '--role',
          'admin',
          '--first-name',
          'Ada',
          '--json',
        ],
        env,
      ),
    );
    expect(user).toMatchObject({ tenant_id: tenant.id, email: 'cli@example.test', role: 'admin' });
    const key = JSON.parse(
      await parley(['key', 'create', '--tenant', tenant.id, '--expires-in', '30d', '--json'], env),
    );
    expect(key.key).toMatch(/^svc_/);
    expect(new Date(key.expires_at).getTime()).toBeGreaterThan(Date.now() + 29 * 86400_000);

    const db = get().backend === 'postgres' ? get().db : (await openPglite(dataDir)).db;
    const lastLogin = new Date('2030-01-02T03:04:05.000Z');
    try {
      const ctx = await createContext(testConfig(), { db, coordination: memoryCoordination() });
      expect((await ctx.apiKeys.verify(key.key)).tenantId).toBe(tenant.id);
      // A signed-in user and more bots than one page of the repository, all created at once.
      await db.query('UPDATE users SET last_login_at = $2 WHERE tenant_id = $1', [tenant.id, lastLogin]);
      await db.query(
        `INSERT INTO bots (tenant_id, name) SELECT $1, 'Bot ' || lpad(n::text, 3, '0') FROM generate_series(1, 101) n`,
        [tenant.id],
      );
    } finally {
      if (db !== get().db) await db.close();
    }

    const users = JSON.parse(await parley(['user', 'list', '--tenant', tenant.id, '--json'], env));
    expect(users).toEqual([
      {
        id: user.id,
        email: 'cli@example.test',
        role: 'admin',
        first_name: 'Ada',
        last_name: null,
        is_active: true,
        created_at: expect.any(String),
        last_login_at: lastLogin.toISOString(),
      },
    ]);
    const userTable = (await parley(['user', 'list', '--tenant', 'CLI GmbH'], env)).split('\n');
    expect(userTable[0]).toMatch(/^id\s+email\s+role\s+first_name\s+last_name\s+is_active\s+last_login_at$/);
    expect(userTable[1]).toContain('true');
    expect(userTable[1]).toContain('2030-01-02T03:04:05.000Z');

    const bots = JSON.parse(await parley(['bot', 'list', '--tenant', tenant.id, '--json'], env)) as {
      id: string;
      name: string;
    }[];
    expect(bots).toHaveLength(101);
    expect(new Set(bots.map((b) => b.id)).size).toBe(101);
    expect(Object.keys(bots[0]!).sort()).toEqual([
      'created_at',
      'id',
      'is_active',
      'model',
      'name',
      'status',
    ]);
  });

  it('refuses bad arguments with a clear message and a non-zero exit', async () => {
    const env: Record<string, string> = { DATABASE_URL: get().url ?? '' };
    if (get().backend === 'pglite') {
      env.PARLEY_DATA_DIR = mkdtempSync(join(tmpdir(), 'parley-cli-'));
      dirs.push(env.PARLEY_DATA_DIR);
    }
    await expect(parley(['tenant', 'create', '--name', 'X', '--quota', 'many'], env)).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('not a whole number'),
    });
    await expect(parley(['tenant', 'create', '--name', 'X', '--plan', 'gold'], env)).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("unknown plan 'gold'"),
    });
  });
});

describe('embedded data directory', () => {
  it('is never opened by a second process while the server holds it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-lock-'));
    dirs.push(dataDir);
    const release = acquireDataDirLock(dataDir);
    try {
      await expect(parley(['migrate'], { PARLEY_DATA_DIR: dataDir, DATABASE_URL: '' })).rejects.toMatchObject(
        {
          code: 1,
          stderr: expect.stringContaining(`is in use by process ${process.pid}`),
        },
      );
    } finally {
      release();
    }
    expect(await parley(['migrate'], { PARLEY_DATA_DIR: dataDir, DATABASE_URL: '' })).toMatch(
      /applied: 0001_core/,
    );
  });
});
