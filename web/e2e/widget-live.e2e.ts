import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { migrate } from '../../src/db/migrate.js';
import { seedDemo } from '../../src/demo.js';
import type { AppContext } from '../../src/shared/context.js';
import { cspLinesOf, snippetOf } from '../src/features/channels/origins';
import { LAUNCH_ARGS, SHOTS_DIR, findChromium, seriousViolations } from './harness';

/**
 * The website widget against the REAL service (PGlite, the offline model, the flow engine) in
 * Chromium, on a tenant's page of a second origin that carries exactly the published snippet and
 * the published Content-Security-Policy lines after `default-src 'self'`. Also the share link's
 * hosted page. The fake-server test (widget.e2e.ts) keeps only what the service cannot produce
 * on demand (a consent gate's request count, tokens and origins of every request).
 */
describe('website widget against the real service', () => {
  let ctx: AppContext;
  let service: FastifyInstance;
  let hostApp: FastifyInstance;
  let serviceOrigin = '';
  let hostOrigin = '';
  let botId = '';
  let publishableKey = '';
  let owner = { authorization: '' };
  let dataDir = '';
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const errors: string[] = [];

  async function api(method: string, path: string, body?: unknown) {
    const res = await fetch(`${serviceOrigin}${path}`, {
      method,
      headers: { ...owner, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  }

  async function newContext(width = 1280, height = 900): Promise<BrowserContext> {
    const c = await browser.newContext({
      viewport: { width, height },
      locale: 'de-DE',
      reducedMotion: 'reduce',
    });
    await c.addInitScript(() => {
      const list: string[] = [];
      (window as unknown as { __violations: string[] }).__violations = list;
      document.addEventListener('securitypolicyviolation', (e) =>
        list.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    return c;
  }
  async function openPage(target: BrowserContext, url: string): Promise<Page> {
    const p = await target.newPage();
    p.setDefaultTimeout(20_000);
    p.on('pageerror', (error) => errors.push(error.message));
    p.on('console', (message) => {
      if (message.text().startsWith('Failed to load resource')) return;
      if (message.type() === 'error' || /Content.Security.Policy|Refused/i.test(message.text()))
        errors.push(message.text());
    });
    p.on('response', (response) => {
      if (response.status() >= 400) errors.push(`${response.status()} ${new URL(response.url()).pathname}`);
    });
    await p.goto(url);
    return p;
  }
  const violations = (p: Page) =>
    p.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
  const dialog = (p: Page) => p.getByRole('dialog', { name: 'Demo-Bot' });
  const log = (p: Page) => p.getByRole('log');
  // The bot's messages in the log (not the hidden draft a streaming reply is written into).
  const botMessages = (p: Page) => p.locator('parley-chat .msg.bot:not(.draft)');

  beforeAll(async () => {
    const executablePath = findChromium();
    if (!executablePath) throw new Error('chromium not found on the PATH (apt-get install -y chromium)');
    dataDir = mkdtempSync(join(tmpdir(), 'parley-widget-live-'));
    ctx = await createContext(
      loadConfig({
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        PARLEY_DATA_DIR: dataDir,
        BCRYPT_COST: '4',
        WEBHOOK_WORKER: 'false',
      }),
    );
    await migrate(ctx.db);
    const seed = await seedDemo(ctx);
    botId = seed.botId;
    service = await buildApp(ctx);
    serviceOrigin = await service.listen({ host: '127.0.0.1', port: 0 });

    // The tenant's website: another origin, a strict policy plus the published lines and snippet.
    hostApp = Fastify();
    hostApp.get('/favicon.ico', async (_request, reply) => reply.status(204).send());
    hostApp.get('/', async (_request, reply) =>
      reply
        .header(
          'content-security-policy',
          `default-src 'self'; ${cspLinesOf(serviceOrigin).replace(/\n/g, ' ')}`,
        )
        .type('text/html; charset=utf-8')
        .send(
          '<!doctype html><html lang="de"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
            '<title>Kursstudio Sonnenschein</title></head><body><main><h1>Kursstudio Sonnenschein</h1>' +
            `<p>${'Yoga, Pilates und Rückenfit für alle. '.repeat(60)}</p></main>` +
            `${snippetOf(serviceOrigin, publishableKey)}</body></html>`,
        ),
    );
    hostOrigin = await hostApp.listen({ host: '127.0.0.1', port: 0 });
    expect(new URL(hostOrigin).port).not.toBe(new URL(serviceOrigin).port);

    const login = await fetch(`${serviceOrigin}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: seed.email, password: seed.password }),
    });
    owner = { authorization: `Bearer ${((await login.json()) as { token: string }).token}` };
    const settings = await api('PUT', `/api/bots/${botId}/widget`, {
      enabled: true,
      allowed_origins: [hostOrigin],
      share_link_enabled: true,
      theme: { greeting: 'Willkommen im Kursstudio!', primary_color: '#0b7285' },
    });
    publishableKey = settings.publishable_key as string;
    await api('POST', `/api/bots/${botId}/blocks`, {
      name: 'Kurse',
      block_type: 'buttons',
      items: [
        { id: 'yoga', title: 'Yoga' },
        { id: 'pilates', title: 'Pilates' },
        { id: 'team', title: 'Mit dem Team sprechen' },
      ],
      trigger_mode: 'keyword',
      step_config: { keywords: ['Kurs'] },
      option_actions: {
        yoga: { action: 'reply', text: 'Yoga ist montags um 18 Uhr.' },
        pilates: { action: 'reply', text: 'Pilates ist dienstags um 19 Uhr.' },
        team: { action: 'handover' },
      },
    });

    browser = await chromium.launch({ executablePath, args: LAUNCH_ARGS });
    mkdirSync(SHOTS_DIR, { recursive: true });
    context = await newContext();
    page = await openPage(context, hostOrigin);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await hostApp?.close();
    await service?.close();
    await ctx?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('a conversation streams from the service into the panel, under the page’s strict policy', async () => {
    await page.getByRole('button', { name: 'Chat öffnen' }).click();
    await dialog(page).waitFor();
    await log(page).getByText('Willkommen im Kursstudio!').waitFor();
    const streamed = page.waitForResponse(
      (r) => r.url().endsWith('/v1/widget/messages') && r.request().method() === 'POST',
    );
    await page.getByLabel('Ihre Nachricht').fill('Wann habt ihr geöffnet?');
    await page.getByLabel('Ihre Nachricht').press('Enter');
    const response = await streamed;
    expect(response.headers()['content-type']).toMatch(/^text\/event-stream/);
    expect(response.headers()['access-control-allow-origin']).toBe(hostOrigin);
    await expect.poll(() => botMessages(page).count()).toBe(2);
    await expect(violations(page)).resolves.toEqual([]);
    await page.screenshot({ path: join(SHOTS_DIR, 'widget-live-streamed.png') });
  });

  it('a keyword shows the flow block as buttons, which survive a reload and work', async () => {
    await page.getByLabel('Ihre Nachricht').fill('Welche Kurse gibt es?');
    await page.getByRole('button', { name: 'Senden' }).click();
    await dialog(page).getByRole('button', { name: 'Yoga' }).waitFor();

    await page.reload();
    await page.getByRole('button', { name: 'Chat öffnen' }).click();
    await log(page).getByText('Welche Kurse gibt es?').waitFor();
    await expect(log(page).textContent()).resolves.toContain('Wann habt ihr geöffnet?');
    // The transcript brings the reply's blocks: the buttons are back and still answer.
    const yoga = dialog(page).getByRole('button', { name: 'Yoga' });
    await yoga.waitFor();
    await yoga.click();
    await log(page).getByText('Yoga ist montags um 18 Uhr.', { exact: false }).waitFor();
    await expect(yoga.isDisabled()).resolves.toBe(true);
    await expect(seriousViolations(page)).resolves.toEqual([]);
  });

  it('the hand-over option hands the conversation to a person, and the panel says so', async () => {
    await page.getByLabel('Ihre Nachricht').fill('Noch ein Kurs bitte');
    await page.getByLabel('Ihre Nachricht').press('Enter');
    await expect
      .poll(() => dialog(page).getByRole('button', { name: 'Mit dem Team sprechen' }).count())
      .toBe(2);
    await dialog(page).getByRole('button', { name: 'Mit dem Team sprechen' }).last().click();
    await dialog(page).getByText('Ein Mensch antwortet gleich').waitFor();
    const [row] = await ctx.db.query<{ status: string }>(
      "SELECT status FROM conversations WHERE bot_id = $1 AND channel = 'widget'",
      [botId],
    );
    expect(row?.status).toBe('handed_over');
    await page.screenshot({ path: join(SHOTS_DIR, 'widget-live-handover.png') });
    // After a reload the notice is still there (from the transcript's status).
    await page.reload();
    await page.getByRole('button', { name: 'Chat öffnen' }).click();
    await dialog(page).getByText('Ein Mensch antwortet gleich').waitFor();
    await expect(violations(page)).resolves.toEqual([]);
  });

  it('the share link: the hosted page shows the widget full screen and talks to the bot', async () => {
    const c = await newContext(390, 844);
    const p = await openPage(c, `${serviceOrigin}/c/${botId}`);
    await dialog(p).waitFor();
    const box = await dialog(p).boundingBox();
    expect(box).toMatchObject({ x: 0, y: 0, width: 390, height: 844 });
    await p.getByLabel('Ihre Nachricht').fill('Welche Kurse gibt es?');
    await p.getByLabel('Ihre Nachricht').press('Enter');
    await dialog(p).getByRole('button', { name: 'Pilates' }).click();
    await log(p).getByText('Pilates ist dienstags um 19 Uhr.', { exact: false }).waitFor();
    await expect(violations(p)).resolves.toEqual([]);
    await expect(seriousViolations(p)).resolves.toEqual([]);
    await p.screenshot({ path: join(SHOTS_DIR, 'share-link-390.png') });

    // Switched off: the page says so in words.
    await p.close();
    await api('PUT', `/api/bots/${botId}/widget`, { share_link_enabled: false });
    const q = await c.newPage();
    const off = await q.goto(`${serviceOrigin}/c/${botId}`);
    expect(off?.status()).toBe(404);
    await q.getByText('Diesen Chat gibt es nicht oder er ist ausgeschaltet.', { exact: false }).waitFor();
    await c.close();
  });

  it('no browser errors and no policy violation anywhere', () => {
    expect(errors).toEqual([]);
  });
});
