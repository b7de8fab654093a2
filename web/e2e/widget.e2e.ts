import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAUNCH_ARGS, SHOTS_DIR, findChromium, seriousViolations } from './harness';
import { startFakeWidgetApi, startHostPage, type FakeWidgetApi } from './widget-fake';

/**
 * The website widget in Chromium on a tenant's page (a second origin) under a strict
 * Content-Security-Policy: launcher, streamed replies, buttons, resuming after a reload, the
 * hand-over, deleting the conversation; axe, keyboard only and a 390 px phone.
 */
describe('website widget on a page with a strict CSP', () => {
  let api: FakeWidgetApi;
  let host: { baseUrl: string; close(): Promise<void> };
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const errors: string[] = [];

  async function openPage(target: BrowserContext): Promise<Page> {
    const p = await target.newPage();
    p.setDefaultTimeout(15_000);
    p.on('pageerror', (error) => errors.push(error.message));
    p.on('console', (message) => {
      // Failed requests are judged by the response listener below, which knows their address.
      if (message.text().startsWith('Failed to load resource')) return;
      if (message.type() === 'error' || /Content.Security.Policy|Refused/i.test(message.text()))
        errors.push(message.text());
    });
    p.on('response', (response) => {
      if (response.status() >= 400) errors.push(`${response.status()} ${new URL(response.url()).pathname}`);
    });
    await p.goto(host.baseUrl);
    return p;
  }
  async function newContext(width = 1280, height = 900): Promise<BrowserContext> {
    // Reduced motion: the panel appears without its slide-in, so its place can be measured.
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
  const violations = (p: Page) =>
    p.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
  const shot = async (p: Page, name: string) => p.screenshot({ path: join(SHOTS_DIR, `widget-${name}.png`) });
  const dialog = (p: Page) => p.getByRole('dialog', { name: 'Kursstudio' });
  const log = (p: Page) => p.getByRole('log');

  beforeAll(async () => {
    const executablePath = findChromium();
    if (!executablePath) throw new Error('chromium not found on the PATH (apt-get install -y chromium)');
    let apiOrigin = '';
    let hostOrigin = '';
    api = await startFakeWidgetApi(() => hostOrigin);
    apiOrigin = api.baseUrl;
    host = await startHostPage(() => apiOrigin);
    hostOrigin = host.baseUrl;
    // Two origins: the page and the service differ by port.
    expect(new URL(hostOrigin).port).not.toBe(new URL(apiOrigin).port);
    browser = await chromium.launch({ executablePath, args: LAUNCH_ARGS });
    mkdirSync(SHOTS_DIR, { recursive: true });
    context = await newContext();
    page = await openPage(context);
  });
  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await api?.close();
  });

  it('loads under the strict CSP: a labelled launcher, no violation, the panel only on first open', async () => {
    const launcher = page.getByRole('button', { name: 'Chat öffnen' });
    await launcher.waitFor();
    expect(await launcher.getAttribute('aria-expanded')).toBe('false');
    const scripts = await page.evaluate(() =>
      performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname),
    );
    expect(scripts).toContain('/widget/v1.js');
    expect(scripts.some((p) => p.includes('panel-'))).toBe(false);
    // No style attribute anywhere in the widget.
    const styled = await page.evaluate(
      () => document.querySelector('parley-chat')!.shadowRoot!.querySelectorAll('[style]').length,
    );
    expect(styled).toBe(0);
    await shot(page, 'launcher');
  });

  it('opens a dialog with the greeting and streams a reply into the log', async () => {
    await page.getByRole('button', { name: 'Chat öffnen' }).click();
    await dialog(page).waitFor();
    await expect(log(page).textContent()).resolves.toContain('Willkommen im Kursstudio');
    const input = page.getByLabel('Ihre Nachricht');
    await expect(
      input.evaluate((node) => node === (node.getRootNode() as ShadowRoot).activeElement),
    ).resolves.toBe(true);
    await input.fill('Hallo zusammen');
    await input.press('Enter');
    await log(page).getByText('Sie schrieben: Hallo zusammen. Wie kann ich sonst helfen?').waitFor();
    // Shown once, though it also arrived on the events stream.
    await page.waitForTimeout(300);
    await expect(
      log(page).getByText('Sie schrieben: Hallo zusammen', { exact: false }).count(),
    ).resolves.toBe(1);
    await expect(violations(page)).resolves.toEqual([]);
    await shot(page, 'streamed');
  });

  it('shows a block as buttons and sends the chosen item: the course is booked', async () => {
    const input = page.getByLabel('Ihre Nachricht');
    await input.fill('Welche Kurse gibt es?');
    await page.getByRole('button', { name: 'Senden' }).click();
    const yoga = dialog(page).getByRole('button', { name: 'Yoga' });
    await yoga.waitFor();
    await dialog(page).getByRole('button', { name: 'Pilates' }).waitFor();
    // The reply is shown once (it also came on the events stream), and the streaming draft is gone.
    await expect(dialog(page).getByText('Wir haben diese Kurse.', { exact: false }).count()).resolves.toBe(1);
    await shot(page, 'buttons');
    await yoga.click();
    await log(page).getByText('Gebucht: Yoga am Montag um 18 Uhr.', { exact: false }).waitFor();
    await expect(yoga.isDisabled()).resolves.toBe(true);
  });

  it('axe finds nothing serious with the panel open', async () => {
    await expect(seriousViolations(page)).resolves.toEqual([]);
  });

  it('keeps the conversation after a reload', async () => {
    await page.reload();
    await page.getByRole('button', { name: 'Chat öffnen' }).click();
    await log(page).getByText('Gebucht: Yoga am Montag', { exact: false }).waitFor();
    await expect(log(page).textContent()).resolves.toContain('Welche Kurse gibt es?');
    await expect(log(page).textContent()).resolves.not.toContain('Willkommen im Kursstudio');
  });

  it('after a hand-over says a person will answer, and the person’s message arrives on the events stream', async () => {
    const input = page.getByLabel('Ihre Nachricht');
    await input.fill('Ich möchte mit einem Menschen sprechen');
    await input.press('Enter');
    await dialog(page).getByText('Ein Mensch antwortet gleich').waitFor();
    // Anna types in the inbox: the widget says so, then shows her reply as hers, with her name.
    await dialog(page).getByText('Anna schreibt …').waitFor();
    await shot(page, 'person-typing');
    const reply = log(page)
      .locator('.msg.person')
      .filter({ hasText: 'Hallo, hier ist Anna vom Kursstudio.' });
    await reply.waitFor();
    await expect(reply.locator('.who').textContent()).resolves.toBe('Anna: ');
    // Her picture is drawn next to her name (loaded, under the page's img-src).
    const picture = reply.locator('.who img.face');
    await expect(picture.getAttribute('src')).resolves.toMatch(/^http:\/\/localhost:\d+\/team\/anna\.svg$/);
    await expect
      .poll(() => picture.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0))
      .toBe(true);
    await dialog(page).getByText('Anna schreibt …').waitFor({ state: 'hidden' });
    // Once a person answered, the notice that one will answer is gone.
    await dialog(page).getByText('Ein Mensch antwortet gleich').waitFor({ state: 'detached' });
    // Every message went with its own Idempotency-Key.
    expect(api.idempotencyKeys.length).toBeGreaterThan(0);
    expect(api.idempotencyKeys.every((key) => /^wm_[0-9a-f]{32}$/.test(key))).toBe(true);
    expect(new Set(api.idempotencyKeys).size).toBe(api.idempotencyKeys.length);
    await shot(page, 'handover');
  });

  it('Esc closes the dialog and focus returns to the launcher', async () => {
    await page.keyboard.press('Escape');
    await dialog(page).waitFor({ state: 'hidden' });
    const launcher = page.getByRole('button', { name: 'Chat öffnen' });
    await expect(launcher.evaluate((n) => n === (n.getRootNode() as ShadowRoot).activeElement)).resolves.toBe(
      true,
    );
    await expect(launcher.getAttribute('aria-expanded')).resolves.toBe('false');
  });

  it('deletes the conversation on request', async () => {
    await page.getByRole('button', { name: 'Chat öffnen' }).click();
    await dialog(page).getByRole('button', { name: 'Unterhaltung löschen' }).click();
    await dialog(page).getByRole('button', { name: 'Ja, löschen' }).click();
    await dialog(page).getByText('Die Unterhaltung wurde gelöscht.').waitFor();
    await expect(log(page).textContent()).resolves.not.toContain('Gebucht');
    const stored = await page.evaluate(() =>
      Object.keys(localStorage).filter((k) => k.startsWith('parley.')),
    );
    expect(stored).toEqual([]);
  });

  it('is usable by keyboard alone: Tab reaches the launcher, focus stays in the dialog', async () => {
    const c = await newContext();
    const p = await openPage(c);
    await p.getByRole('button', { name: 'Chat öffnen' }).waitFor();
    await p.bringToFront();
    const focusedName = () =>
      p.evaluate(() => {
        let node: Element | null = document.activeElement;
        while (node?.shadowRoot?.activeElement) node = node.shadowRoot.activeElement;
        return node?.getAttribute('aria-label') ?? (node?.id || node?.textContent) ?? '';
      });
    for (let i = 0; i < 5 && (await focusedName()) !== 'Chat öffnen'; i++) await p.keyboard.press('Tab');
    expect(await focusedName()).toBe('Chat öffnen');
    await p.keyboard.press('Enter');
    await dialog(p).waitFor();
    await p.keyboard.type('Welche Kurse?');
    await p.keyboard.press('Enter');
    await dialog(p).getByRole('button', { name: 'Pilates' }).waitFor();
    // Tab around the dialog twice: focus never leaves it.
    for (let i = 0; i < 12; i++) {
      await p.keyboard.press('Tab');
      const inside = await p.evaluate(() => {
        const root = document.querySelector('parley-chat')!.shadowRoot!;
        return (
          document.activeElement?.tagName === 'PARLEY-CHAT' && !!root.activeElement?.closest('[role=dialog]')
        );
      });
      expect(inside, `after Tab ${i + 1}`).toBe(true);
    }
    // Choose Pilates with the keyboard.
    for (let i = 0; i < 12 && (await focusedName()) !== 'Pilates'; i++) await p.keyboard.press('Tab');
    expect(await focusedName()).toBe('Pilates');
    await p.keyboard.press('Enter');
    await log(p).getByText('Gebucht: Pilates', { exact: false }).waitFor();
    // The chosen button is disabled now: focus went to the message field, still in the dialog.
    expect(await focusedName()).toBe('parley-input');
    await p.keyboard.press('Escape');
    expect(await focusedName()).toBe('Chat öffnen');
    await c.close();
  });

  it('fills a 390 px phone screen without moving the page', async () => {
    const c = await newContext(390, 844);
    const p = await openPage(c);
    await p.evaluate(() => window.scrollTo(0, 200));
    const scrolled = await p.evaluate(() => window.scrollY);
    expect(scrolled).toBeGreaterThan(0);
    await p.getByRole('button', { name: 'Chat öffnen' }).click();
    await dialog(p).waitFor();
    const box = await dialog(p).boundingBox();
    expect(box).toMatchObject({ x: 0, y: 0, width: 390, height: 844 });
    await p.getByLabel('Ihre Nachricht').fill('Welche Kurse?');
    await p.getByLabel('Ihre Nachricht').press('Enter');
    await dialog(p).getByRole('button', { name: 'Yoga' }).waitFor();
    await expect(p.evaluate(() => window.scrollY)).resolves.toBe(scrolled);
    await expect(seriousViolations(p)).resolves.toEqual([]);
    await p.screenshot({ path: join(SHOTS_DIR, 'widget-390.png') });
    await c.close();
  });

  it('with a consent gate stores nothing and sends nothing before the visitor agrees', async () => {
    const c = await newContext();
    const p = await c.newPage();
    p.setDefaultTimeout(15_000);
    await p.goto(`${host.baseUrl}/?consent`);
    const before = api.requests.length;
    await p.getByRole('button', { name: 'Chat öffnen' }).click();
    // Before any request the bot's name is not known: the dialog is called "Chat".
    const agree = p
      .getByRole('dialog', { name: 'Chat' })
      .getByRole('button', { name: 'Einverstanden, Chat starten' });
    await agree.waitFor();
    await expect(p.evaluate(() => Object.keys(localStorage))).resolves.toEqual([]);
    expect(api.requests.length).toBe(before);
    await agree.click();
    await log(p).getByText('Willkommen im Kursstudio', { exact: false }).waitFor();
    expect(api.requests.length).toBeGreaterThan(before);
    const keys = await p.evaluate(() => Object.keys(localStorage).sort());
    expect(keys).toEqual(['parley.pk_test_kursstudio.consent', 'parley.pk_test_kursstudio.session']);
    await c.close();
  });

  it('never put the token in a URL, and every API request carried its Origin; no browser errors', () => {
    expect(api.tokensInUrls).toEqual([]);
    expect(api.withoutOrigin).toEqual([]);
    expect(errors).toEqual([]);
  });
});
