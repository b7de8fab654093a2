#!/usr/bin/env node
// The JavaScript each dashboard page needs, gzipped, from the build's manifest: the entry, the
// signed-in shell, the parent route and the page, with every chunk they import. Fails (exit 1)
// when the sign-in page or the largest page is over its budget. Run after `npm run web:build`.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { URL, fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

// The sign-in page (React, React Router, Mantine, i18next and its own texts: no query cache, no
// form library, no texts of other pages) and the largest page behind sign-in.
export const BUDGET_KB = { signIn: 150, largestPage: 350 };

const dist = fileURLToPath(new URL('../web/dist/', import.meta.url));
const manifestPath = join(dist, '.vite/manifest.json');
if (!existsSync(manifestPath)) {
  console.error('FAIL: web/dist/.vite/manifest.json is missing: run npm run web:build first');
  process.exit(1);
}
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));

/** Every chunk file a manifest entry loads before it runs (its static imports, transitively). */
function closure(key, files = new Set()) {
  const chunk = manifest[key];
  if (!chunk) throw new Error(`not in the manifest: ${key}`);
  if (files.has(chunk.file)) return files;
  files.add(chunk.file);
  for (const imported of chunk.imports ?? []) closure(imported, files);
  return files;
}

const gzipped = new Map();
function gzipSize(file) {
  if (!gzipped.has(file)) gzipped.set(file, gzipSync(readFileSync(join(dist, file)), { level: 9 }).length);
  return gzipped.get(file);
}

const SHELL = 'src/app/Shell.tsx';
// The texts of one language (German, the larger) load with every page behind sign-in; the
// sign-in page's own texts are part of the entry.
const TEXTS = 'src/i18n/de.json';
// TanStack Query, loaded with the signed-in shell and the invitation page.
const QUERY = 'src/app/query.tsx';
const BOT = 'src/features/bots/BotPage.tsx';
const SETTINGS = 'src/features/settings/SettingsPage.tsx';
// Pages outside the signed-in shell.
const SIGN_IN = 'src/features/auth/LoginPage.tsx';
const PUBLIC_PAGES = new Set([SIGN_IN, 'src/features/users/AcceptInvitationPage.tsx']);
const parentOf = (key) => {
  if (/features\/(bots\/SettingsTab|prompt|knowledge|flow|chat)\//.test(key)) return [SHELL, BOT];
  if (/features\/(settings\/(ApiKeys|Webhooks)Page|users\/TeamPage)/.test(key)) return [SHELL, SETTINGS];
  return [SHELL];
};

// Parts a page loads later, when it needs them (not before it can be used): reported, not budgeted.
// The overview's charts (usage, and the numbers per bot) load behind their figures.
const ON_DEMAND = new Set([
  'src/features/overview/UsageChart.tsx',
  'src/features/overview/NumbersCharts.tsx',
]);

// A page named above that the build no longer has (a renamed folder) would be budgeted wrongly.
for (const key of [...PUBLIC_PAGES, ...ON_DEMAND, SHELL, BOT, SETTINGS]) {
  if (!manifest[key]) {
    console.error(`FAIL: ${key} is not in the build's manifest: update scripts/web-budget.mjs`);
    process.exit(1);
  }
}

const pages = Object.keys(manifest)
  .filter((key) => manifest[key].isDynamicEntry && key.startsWith('src/features/') && !ON_DEMAND.has(key))
  .map((key) => {
    const chain =
      key === SIGN_IN
        ? ['index.html', key]
        : PUBLIC_PAGES.has(key)
          ? ['index.html', TEXTS, QUERY, key]
          : ['index.html', TEXTS, QUERY, ...parentOf(key), key];
    const files = new Set();
    for (const part of chain) closure(part, files);
    const bytes = [...files].filter((f) => f.endsWith('.js')).reduce((sum, f) => sum + gzipSize(f), 0);
    return { page: key.replace(/^src\/features\//, ''), kb: bytes / 1024 };
  })
  .sort((a, b) => b.kb - a.kb);

console.log('JavaScript per page (gzip -9, KB):');
for (const { page, kb } of pages) console.log(`  ${kb.toFixed(1).padStart(7)}  ${page}`);
for (const key of ON_DEMAND) {
  const entry = closure('index.html');
  const files = [...closure(key)].filter((f) => f.endsWith('.js') && !entry.has(f));
  const kb = files.reduce((sum, f) => sum + gzipSize(f), 0) / 1024;
  console.log(`  on demand: ${key.replace(/^src\/features\//, '')} +${kb.toFixed(1)} KB beyond the entry`);
}
const signIn = pages.find((p) => p.page.endsWith('LoginPage.tsx'));
const largest = pages[0];
const failures = [];
if (!signIn || signIn.kb > BUDGET_KB.signIn)
  failures.push(`sign-in page ${signIn?.kb.toFixed(1)} KB > ${BUDGET_KB.signIn} KB`);
if (largest.kb > BUDGET_KB.largestPage)
  failures.push(`largest page (${largest.page}) ${largest.kb.toFixed(1)} KB > ${BUDGET_KB.largestPage} KB`);
console.log(
  `Budgets: sign-in ${signIn?.kb.toFixed(1)} / ${BUDGET_KB.signIn} KB, largest page ${largest.kb.toFixed(1)} / ${BUDGET_KB.largestPage} KB`,
);
if (failures.length > 0) {
  for (const failure of failures) console.error(`FAIL: ${failure}`);
  process.exit(1);
}
