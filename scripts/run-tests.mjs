#!/usr/bin/env node
// Runs the whole test suite. PGlite always; PostgreSQL and Redis on 127.0.0.1 are used when
// TEST_DATABASE_URL / REDIS_URL are set, or found running on their standard ports.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scanDirectory } from './scan-test-logs.mjs';

function reachable(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

const env = { ...process.env };
if (!env.TEST_DATABASE_URL && (await reachable(5432))) {
  env.TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
}
if (!env.REDIS_URL && (await reachable(6379))) env.REDIS_URL = 'redis://127.0.0.1:6379';
console.log(
  `Test backends: PGlite${env.TEST_DATABASE_URL ? ' + PostgreSQL' : ' only (no PostgreSQL found)'}; ` +
    `Redis ${env.REDIS_URL ? 'on' : 'off (Redis tests skipped)'}`,
);
// Every test app logs at debug level into this directory; the logs are scanned for secrets after the run.
const logDir = mkdtempSync(join(tmpdir(), 'parley-test-logs-'));
env.PARLEY_TEST_LOG_DIR = logDir;

function run(args, extraEnv = {}) {
  return new Promise((resolve) => {
    const child = spawn('npx', args, { stdio: 'inherit', env: { ...env, ...extraEnv } });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const args = process.argv.slice(2);
const code = await run(['vitest', 'run', ...args]);

const { lines, listed, findings } = scanDirectory(logDir);
rmSync(logDir, { recursive: true, force: true });
if (findings.length > 0) {
  console.error(`Secret scan: ${findings.length} debug log line(s) of ${lines} hold a secret:`);
  for (const finding of findings.slice(0, 50)) console.error(`  ${finding}`);
} else {
  console.log(
    `Secret scan: ${lines} debug log lines, ${listed} listed secrets and all secret formats: none found.`,
  );
}

// The dashboard's end-to-end tests run after the rest (whole suite only), in Debian's chromium.
// PARLEY_E2E_REQUIRED=1 (CI) turns a missing browser into a failure.
let e2e = 0;
if (args.length === 0) {
  const chromium = env.CHROMIUM_PATH || spawnSync('which', ['chromium']).status === 0;
  if (chromium) e2e = spawnSync('node', ['scripts/run-e2e.mjs'], { stdio: 'inherit', env }).status ?? 1;
  else {
    console.log('\n' + '!'.repeat(78));
    console.log('!!! chromium not found: the dashboard end-to-end tests were SKIPPED.');
    console.log('!!! Install it with `apt-get install -y chromium` and run `npm run test:e2e`.');
    console.log('!'.repeat(78) + '\n');
    if (env.PARLEY_E2E_REQUIRED === '1') e2e = 1;
  }
}
process.exit(code || (findings.length > 0 ? 1 : 0) || e2e);
