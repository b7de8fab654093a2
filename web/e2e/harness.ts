/**
 * End-to-end harness: the real service (buildApp, the built dashboard in web/dist) on a fresh
 * PGlite data directory and a free port, seeded like a first `npm start` (demo tenant with its
 * owner login) plus a viewer; Debian's chromium driven by playwright-core; axe-core checks and
 * screenshots at 1280 and 390 px.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import type { AppContext } from '../../src/shared/context.js';
import { migrate } from '../../src/db/migrate.js';
import { seedDemo } from '../../src/demo.js';
import { insertUser } from '../../src/modules/auth/repository.js';
import { createWebhookWorker } from '../../src/modules/webhooks/sender.js';

const ROOT = new URL('../..', import.meta.url).pathname;
export const WEB_DIR = join(ROOT, 'web/dist');
/** Screenshots go outside the repository: PARLEY_SCREENSHOT_DIR, else a folder in the system's temp. */
export const SHOTS_DIR = process.env.PARLEY_SCREENSHOT_DIR ?? join(tmpdir(), 'parley-screens');

/** The chromium on the PATH (Debian's package), or CHROMIUM_PATH. Never downloaded. */
export function findChromium(): string | null {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      return execFileSync('which', [name], { encoding: 'utf8' }).trim() || null;
    } catch {
      // not on the PATH
    }
  }
  return null;
}

export const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Login {
  email: string;
  password: string;
}

export interface Harness {
  baseUrl: string;
  browser: Browser;
  owner: Login;
  viewer: Login;
  /** An agent: the inbox, conversations and contacts. */
  agent: Login;
  botId: string;
  /** The demo tenant's API key (the chat endpoint as a customer's system calls it). */
  apiKey: string;
  /** One pass of the webhook delivery worker (it does not run on its own here). */
  deliverWebhooks(): Promise<void>;
  /** Reads the service's database (what the page cannot show, e.g. the Message-ID of a reply). */
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/** `env`: more settings, e.g. a provider's base URL pointed at a local fake. */
export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  if (!existsSync(join(WEB_DIR, 'index.html'))) throw new Error('web/dist is missing: run npm run web:build');
  const executablePath = findChromium();
  if (!executablePath) throw new Error('chromium not found on the PATH (apt-get install -y chromium)');
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-e2e-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PARLEY_DATA_DIR: dataDir,
    PARLEY_WEB_DIR: WEB_DIR,
    BCRYPT_COST: '4',
    WEBHOOK_WORKER: 'false',
    // The journey's webhook receiver listens on 127.0.0.1.
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_TIMEOUT_MS: '2000',
    ...env,
  });
  const ctx: AppContext = await createContext(config);
  await migrate(ctx.db);
  const seed = await seedDemo(ctx);
  const viewer = { email: 'viewer@parley.local', password: 'viewer-password-1' };
  await insertUser(ctx.db, seed.tenantId, {
    email: viewer.email,
    passwordHash: await ctx.sessions.hashPassword(viewer.password),
    role: 'viewer',
    firstName: 'Vera',
  });
  const agent = { email: 'agent@parley.local', password: 'agent-password-1' };
  await insertUser(ctx.db, seed.tenantId, {
    email: agent.email,
    passwordHash: await ctx.sessions.hashPassword(agent.password),
    role: 'agent',
    firstName: 'Anna',
  });
  const app: FastifyInstance = await buildApp(ctx);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const browser = await chromium.launch({ executablePath, args: LAUNCH_ARGS });
  mkdirSync(SHOTS_DIR, { recursive: true });
  return {
    baseUrl: address,
    browser,
    owner: { email: seed.email, password: seed.password },
    viewer,
    agent,
    botId: seed.botId,
    apiKey: seed.apiKey,
    async deliverWebhooks() {
      await createWebhookWorker(ctx).sendDue();
    },
    query: <T>(sql: string, params: unknown[] = []) => ctx.db.query<T>(sql, params),
    async close() {
      await browser.close();
      await app.close();
      await ctx.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function newPage(harness: Harness, language: 'de' | 'en' = 'de'): Promise<Page> {
  const context = await harness.browser.newContext({
    baseURL: harness.baseUrl,
    viewport: { width: 1280, height: 900 },
    locale: language === 'de' ? 'de-DE' : 'en-GB',
  });
  await context.addInitScript((lang) => window.localStorage.setItem('parley.lang', lang), language);
  const page = await context.newPage();
  page.on('pageerror', (error) => console.error(`[browser] ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') console.error(`[browser console] ${message.text()}`);
  });
  page.setDefaultTimeout(20_000);
  return page;
}

/** A form field by its label; required fields carry an asterisk after it. */
export function field(label: string): RegExp {
  return new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( \\*)?$`);
}

/**
 * Signs in through the form and waits for the first page behind it. A refusal shown by the form
 * (wrong password, locked) fails at once with its text instead of a timeout.
 */
export async function signIn(
  page: Page,
  login: Login,
  labels = { email: 'E-Mail', password: 'Passwort', submit: 'Anmelden' },
) {
  if (!new URL(page.url(), 'http://x').pathname.startsWith('/login')) await page.goto('/login');
  const submit = page.getByRole('button', { name: labels.submit });
  await submit.waitFor();
  await page.getByLabel(labels.email).fill(login.email);
  await page.getByLabel(field(labels.password)).fill(login.password);
  await submit.click();
  const outcome = await Promise.race([
    page
      .waitForURL((url) => !url.pathname.startsWith('/login'))
      .then(
        () => 'signed in',
        (error: Error) => `still on the sign-in page: ${error.message}`,
      ),
    page
      .getByRole('alert')
      .waitFor()
      .then(
        async () => `refused: ${await page.getByRole('alert').innerText()}`,
        () => new Promise<string>(() => undefined),
      ),
  ]);
  if (outcome !== 'signed in') throw new Error(`sign-in as ${login.email} ${outcome}`);
  // The signed-in frame is there (its navigation), not only the address.
  await page.getByRole('navigation').first().waitFor();
}

/** axe-core: no serious or critical violations on the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // A notification or dialog still fading in has a text colour that is not yet its own, and
  // axe would measure its contrast halfway: wait for the finite animations to end first.
  await page
    .waitForFunction(
      () =>
        document
          .getAnimations()
          .every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity),
      undefined,
      { timeout: 10_000 },
    )
    .catch(() => undefined);
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(' | ')}`,
    );
}

/** Screenshots of the page at 1280 and at 390 px width (full page), into SHOTS_DIR. */
export async function screenshots(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS_DIR, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  // The shell moves its content with a 200 ms transition when the layout changes width.
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(SHOTS_DIR, `${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.waitForTimeout(400);
}
