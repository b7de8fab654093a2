/**
 * The dashboard's JavaScript budget, measured as a browser loads it: Debian's chromium (through
 * the e2e harness) opens each page with an empty cache, and every JavaScript file it requests
 * before the page is usable (fetched or preloaded) is counted at its gzip -9 size. Fails (exit 1)
 * when the sign-in page or the largest page behind sign-in is over its budget.
 *
 *   npm run web:build && npm run web:budget
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { BrowserContext, Page } from 'playwright-core';
import { WEB_DIR, startHarness } from './harness.js';

/** KB of gzipped JavaScript: the sign-in page, and the largest page behind sign-in. */
export const BUDGET_KB = { signIn: 150, largestPage: 350 };

const gzipped = new Map<string, number>();
function gzipKb(path: string): number {
  if (!gzipped.has(path))
    gzipped.set(path, gzipSync(readFileSync(join(WEB_DIR, path)), { level: 9 }).length / 1024);
  return gzipped.get(path)!;
}

/** Opens `path` in a fresh page of `context` (cache off) and lists the JavaScript it requested until `usable`. */
async function measure(context: BrowserContext, path: string, usable: (page: Page) => Promise<void>) {
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const scripts = new Set<string>();
  let last = Date.now();
  page.on('request', (request) => {
    const url = new URL(request.url());
    // The dashboard's own code (the website widget a preview shows has its own budget).
    if (url.pathname.startsWith('/assets/') && url.pathname.endsWith('.js')) {
      scripts.add(url.pathname);
      last = Date.now();
    }
  });
  await page.goto(path, { waitUntil: 'commit' });
  await usable(page);
  // Whatever the page fetches right after it rendered (its first figures) still counts.
  while (Date.now() - last < 600) await page.waitForTimeout(100);
  const files = [...scripts].map((p) => p.replace(/^\//, ''));
  await page.close();
  return { files, kb: files.reduce((sum, file) => sum + gzipKb(file), 0) };
}

const harness = await startHarness();
let failed = false;
try {
  const visitor = await harness.browser.newContext({ baseURL: harness.baseUrl });
  const signIn = await measure(visitor, '/login', async (page) => {
    await page.waitForFunction(() => {
      const submit = document.querySelector<HTMLButtonElement>('button[type="submit"]');
      return Boolean(
        document.querySelector('input[type="email"]') &&
        document.querySelector('input[type="password"]') &&
        submit &&
        !submit.disabled,
      );
    });
  });
  await visitor.close();

  const member = await harness.browser.newContext({ baseURL: harness.baseUrl });
  const login = await member.request.post('/api/auth/login', {
    data: harness.owner,
    headers: { 'x-requested-with': 'parley' },
  });
  if (!login.ok()) throw new Error(`sign-in for the measurement failed: ${login.status()}`);
  const bot = `/bots/${harness.botId}`;
  const paths = [
    '/',
    '/bots',
    bot,
    `${bot}/prompt`,
    `${bot}/knowledge`,
    `${bot}/flow`,
    `${bot}/channels`,
    `${bot}/chat`,
    '/inbox',
    '/conversations',
    '/events',
    '/contacts',
    '/settings',
    '/settings/api',
    '/settings/webhooks',
    '/settings/team',
  ];
  const pages: { path: string; kb: number; files: number }[] = [];
  for (const path of paths) {
    const result = await measure(member, path, async (page) => {
      await page.locator('main h1').first().waitFor();
    });
    pages.push({ path, kb: result.kb, files: result.files.length });
  }
  await member.close();
  pages.sort((a, b) => b.kb - a.kb);

  console.log('JavaScript a browser loads before each page is usable (gzip -9, KB, files):');
  console.log(`  ${signIn.kb.toFixed(1).padStart(7)}  ${String(signIn.files.length).padStart(3)}  /login`);
  for (const { path, kb, files } of pages)
    console.log(`  ${kb.toFixed(1).padStart(7)}  ${String(files).padStart(3)}  ${path}`);
  const largest = pages[0]!;
  console.log(
    `Budgets: sign-in ${signIn.kb.toFixed(1)} / ${BUDGET_KB.signIn} KB, largest page (${largest.path}) ${largest.kb.toFixed(1)} / ${BUDGET_KB.largestPage} KB`,
  );
  if (signIn.kb > BUDGET_KB.signIn) {
    console.error(
      `FAIL: sign-in page ${signIn.kb.toFixed(1)} KB > ${BUDGET_KB.signIn} KB: ${signIn.files.join(' ')}`,
    );
    failed = true;
  }
  if (largest.kb > BUDGET_KB.largestPage) {
    console.error(
      `FAIL: largest page (${largest.path}) ${largest.kb.toFixed(1)} KB > ${BUDGET_KB.largestPage} KB`,
    );
    failed = true;
  }
} finally {
  await harness.close();
}
process.exit(failed ? 1 : 0);
