import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../bin/parley.js');
const VERSION = (
  JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string }
).version;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real binary on its own embedded data directory. */
let dataDir: string;
async function parley(...args: string[]): Promise<Result> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      env: {
        ...process.env,
        BCRYPT_COST: '4',
        DATABASE_URL: '',
        PARLEY_DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
      },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** One line in words: no stack frames, no SQL, no error class names. */
function expectOneLine(text: string, contains: string) {
  const lines = text.trim().split('\n');
  expect(lines, text).toHaveLength(1);
  expect(lines[0]).toContain(contains);
  expect(text).not.toMatch(/\n\s+at |AppError|INSERT|SELECT|wasm|Error:/);
}

describe('parley CLI errors and exit codes', () => {
  let tenantId: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'parley-cli-errors-'));
    const created = await parley('tenant', 'create', '--name', 'Fehler GmbH', '--json');
    expect(created.code).toBe(0);
    tenantId = (JSON.parse(created.stdout) as { id: string }).id;
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints the version and names unknown commands as such (exit 2)', async () => {
    const version = await parley('--version');
    expect(version).toMatchObject({ code: 0 });
    expect(version.stdout.trim()).toBe(VERSION);
    const unknown = await parley('frobnicate');
    expect(unknown.code).toBe(2);
    expectOneLine(unknown.stderr, "unknown command 'frobnicate'");
    const missing = await parley('tenant', 'create');
    expect(missing.code).toBe(2);
    expectOneLine(missing.stderr, "required option '--name <name>'");
  });

  it('refuses an unknown plan with the list of plans (exit 2), as JSON with --json', async () => {
    const plain = await parley('tenant', 'create', '--name', 'Gold', '--plan', 'gold');
    expect(plain.code).toBe(2);
    expectOneLine(
      plain.stderr,
      "unknown plan 'gold'; plans: business, dashboard, enterprise, sandbox, starter",
    );
    const json = await parley('tenant', 'create', '--name', 'Gold', '--plan', 'gold', '--json');
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { message: expect.stringContaining("unknown plan 'gold'"), exit_code: 2 },
    });
    expect(json.stderr).toBe('');
    const list = await parley('tenant', 'list', '--json');
    expect((JSON.parse(list.stdout) as { name: string }[]).map((t) => t.name)).not.toContain('Gold');
  });

  it('validates e-mail addresses and refuses an e-mail that is taken, in one line', async () => {
    const bad = await parley(
      'user',
      'create',
      '--tenant',
      tenantId,
      '--email',
      'not-an-email',
      '--password',
      'secret-123',
    );
    expect(bad.code).toBe(2);
    expectOneLine(bad.stderr, 'not an e-mail address: not-an-email');
    const ok = await parley(
      'user',
      'create',
      '--tenant',
      'Fehler GmbH',
      '--email',
      'ada@example.test',
      '--password',
      'secret-123',
    );
    expect(ok.code).toBe(0);
    const again = await parley(
      'user',
      'create',
      '--tenant',
      tenantId,
      '--email',
      'ADA@example.test',
      '--password',
      'secret-123',
    );
    expect(again.code).toBe(1);
    expectOneLine(again.stderr, 'a user with the e-mail ADA@example.test already exists');
    const users = await parley('user', 'list', '--tenant', 'Fehler GmbH', '--json');
    expect((JSON.parse(users.stdout) as { email: string }[]).map((u) => u.email)).toEqual([
      'ada@example.test',
    ]);
  });

  it('refuses a key that expires at once and leaves the previous key active', async () => {
    const first = await parley('key', 'create', '--tenant', 'Fehler GmbH', '--json');
    expect(first.code).toBe(0);
    const zero = await parley('key', 'create', '--tenant', tenantId, '--expires-in', '0d');
    expect(zero.code).toBe(2);
    expectOneLine(zero.stderr, 'a duration must be longer than zero');
    const firstId = (JSON.parse(first.stdout) as { id: string }).id;
    const revoke = await parley('key', 'revoke', '--tenant', tenantId, '--id', firstId, '--json');
    expect(revoke.code).toBe(0);
    expect(JSON.parse(revoke.stdout)).toEqual({ id: firstId, revoked: true });
    const unknownKey = await parley('key', 'revoke', '--tenant', tenantId, '--id', 'nope');
    expect(unknownKey.code).toBe(1);
    expectOneLine(unknownKey.stderr, "tenant 'Fehler GmbH' has no API key nope");
  });

  it('finds a tenant by id or exact name, and says so when none matches', async () => {
    const none = await parley('bot', 'list', '--tenant', 'Niemand AG');
    expect(none.code).toBe(1);
    expectOneLine(none.stderr, "no tenant with id or name 'Niemand AG'");
    const byId = await parley('bot', 'list', '--tenant', tenantId, '--json');
    expect(JSON.parse(byId.stdout)).toEqual([]);
  });

  it('creates a demo as JSON, and refuses a second demo in one line', async () => {
    const demo = await parley('demo', '--json');
    expect(demo.code).toBe(0);
    const seed = JSON.parse(demo.stdout) as Record<string, string>;
    expect(seed.api_key).toMatch(/^svc_/);
    expect(seed.chat_url).toContain(`/api/bot-chat/${seed.bot_id}/chat`);
    const bots = await parley('bot', 'list', '--tenant', seed.tenant_id!, '--json');
    expect((JSON.parse(bots.stdout) as { id: string }[]).map((b) => b.id)).toEqual([seed.bot_id]);
    const again = await parley('demo');
    expect(again.code).toBe(1);
    expectOneLine(again.stderr, 'a demo tenant already exists');
    const againJson = await parley('demo', '--json');
    expect(JSON.parse(againJson.stdout).error.exit_code).toBe(1);
  });
});
