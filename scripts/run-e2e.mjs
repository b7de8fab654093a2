#!/usr/bin/env node
// End-to-end tests of the dashboard in Debian's chromium (never downloaded): builds web/dist when
// stale, then runs the e2e vitest project. Exit code 1 without chromium.
import { spawnSync } from 'node:child_process';

const which = spawnSync('which', ['chromium'], { encoding: 'utf8' });
if (!process.env.CHROMIUM_PATH && which.status !== 0) {
  console.error('FAIL: chromium is not on the PATH (apt-get install -y chromium); the e2e tests cannot run.');
  process.exit(1);
}
const build = spawnSync('node', ['scripts/build-web.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const run = spawnSync(
  'npx',
  ['vitest', 'run', '--project', 'e2e', '--no-file-parallelism', ...process.argv.slice(2)],
  {
    stdio: 'inherit',
    env: { ...process.env, PARLEY_E2E: '1' },
  },
);
process.exit(run.status ?? 1);
