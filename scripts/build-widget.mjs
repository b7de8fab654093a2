#!/usr/bin/env node
// Builds the website widget (widget/dist): the loader v1.js (a classic script, the versioned URL
// of the snippet) and the panel chunk panel-<hash>.js (an ES module the loader imports on first
// open), each also as .br and .gz beside it. Skipped when the build is newer than its sources;
// `--force` builds in any case.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { URL, fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'widget/src');
const dist = join(root, 'widget/dist');
const loaderFile = join(dist, 'v1.js');

function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

const force = process.argv.includes('--force');
const builtAt = existsSync(loaderFile) ? statSync(loaderFile).mtimeMs : 0;
const changedAt = Math.max(newest(src), newest(join(root, 'scripts/build-widget.mjs')));
if (!force && builtAt > changedAt) process.exit(0);

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  console.warn(
    'widget/dist is missing or stale and esbuild is not installed (npm install without --omit=dev builds it).',
  );
  process.exit(0);
}

const common = {
  bundle: true,
  minify: true,
  write: false,
  target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
  legalComments: 'none',
  charset: 'utf8',
  logLevel: 'warning',
};

const panel = await esbuild.build({ ...common, entryPoints: [join(src, 'panel.ts')], format: 'esm' });
const panelCode = panel.outputFiles[0].contents;
const hash = createHash('sha256').update(panelCode).digest('base64url').slice(0, 10);
const panelName = `panel-${hash}.js`;
const loader = await esbuild.build({
  ...common,
  entryPoints: [join(src, 'loader.ts')],
  format: 'iife',
  define: { __PANEL_FILE__: JSON.stringify(panelName) },
});

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
for (const [name, code] of [
  ['v1.js', loader.outputFiles[0].contents],
  [panelName, panelCode],
]) {
  const file = join(dist, name);
  writeFileSync(file, code);
  writeFileSync(`${file}.gz`, gzipSync(code, { level: 9 }));
  writeFileSync(`${file}.br`, brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
}
writeFileSync(
  join(dist, 'manifest.json'),
  `${JSON.stringify({ loader: 'v1.js', panel: panelName }, null, 2)}\n`,
);
console.log(`Widget built: widget/dist/v1.js, widget/dist/${panelName}`);
