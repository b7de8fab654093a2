#!/usr/bin/env node
// The dashboard's JavaScript per page, gzipped, as a browser downloads it before the page is
// usable: web/e2e/budget.ts opens each page in Debian's chromium through the e2e harness. Fails
// (exit 1) when the sign-in page (150 KB) or the largest page behind sign-in (350 KB) is over its
// budget. Run after `npm run web:build`; needs chromium on the PATH (or CHROMIUM_PATH).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { URL, fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
if (!existsSync(`${root}web/dist/index.html`)) {
  console.error('FAIL: web/dist is missing: run npm run web:build first');
  process.exit(1);
}
const run = spawnSync('npx', ['tsx', 'web/e2e/budget.ts'], { cwd: root, stdio: 'inherit' });
process.exit(run.status ?? 1);
