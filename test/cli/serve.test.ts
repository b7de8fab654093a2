import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { describeEachBackend } from '../helpers/db.js';
import { freePort, waitFor } from '../helpers/net.js';

const BIN = join(import.meta.dirname, '../../bin/parley.js');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describeEachBackend('parley serve', (get) => {
  it('seeds the demo on an empty database, prints the key once, serves, and shuts down cleanly', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-serve-'));
    dirs.push(dataDir);
    const env = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      BCRYPT_COST: '4',
      PARLEY_SEED_DEMO: 'true',
      WEBHOOK_WORKER: 'false',
      DATABASE_URL: get().backend === 'postgres' ? get().url! : '',
      PARLEY_DATA_DIR: dataDir,
    };
    const child = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

    // Generous: start-up compiles PGlite's WebAssembly and applies every migration.
    const healthy = await waitFor(
      () => fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok),
      90_000,
      'the served health check',
      100,
    ).then(
      () => true,
      () => false,
    );
    expect(healthy, stderr).toBe(true);
    const key = /API key:\s+(svc_\S+)/.exec(stdout)?.[1];
    expect(key).toBeDefined();
    expect(stdout).toContain(`curl -s http://localhost:${port}/api/bot-chat/`);
    expect(stdout.split(key!).length - 1).toBe(2); // once alone, once in the curl line
    if (get().backend === 'pglite') expect(existsSync(join(dataDir, 'parley.lock'))).toBe(true);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(join(dataDir, 'parley.lock'))).toBe(false);
  });
});
