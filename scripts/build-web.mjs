#!/usr/bin/env node
// Builds the dashboard (web/dist) when it is missing or older than its sources, so that
// `npm install && npm start` on a fresh clone serves it, and the website widget (widget/dist,
// scripts/build-widget.mjs, which checks its own sources). `--force` builds in any case.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { URL, fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = join(root, 'web/dist/index.html');
// The web app's sources, and the pure server modules it imports (state machines, event types).
const sources = [
  'web/src',
  'web/index.html',
  'web/vite.config.ts',
  'package-lock.json',
  'src/modules/events/event-status.ts',
  'src/modules/events/bookings/status.ts',
  'src/modules/webhooks/event-types.ts',
];

function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

const force = process.argv.includes('--force');
const widget = spawnSync('node', [join(root, 'scripts/build-widget.mjs'), ...(force ? ['--force'] : [])], {
  cwd: root,
  stdio: 'inherit',
});
if (widget.status !== 0) process.exit(widget.status ?? 1);
const builtAt = existsSync(built) ? statSync(built).mtimeMs : 0;
const changedAt = Math.max(...sources.map((path) => newest(join(root, path))));
if (!force && builtAt > changedAt) process.exit(0);

try {
  createRequire(import.meta.url).resolve('vite');
} catch {
  console.warn(
    'web/dist is missing or stale and vite is not installed (npm install without --omit=dev builds it).',
  );
  process.exit(0);
}
console.log(
  builtAt ? 'Dashboard sources changed: rebuilding web/dist …' : 'Building the dashboard (web/dist) …',
);
const result = spawnSync('npx', ['vite', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
