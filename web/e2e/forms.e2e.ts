import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { field, newPage, screenshots, signIn, startHarness, type Harness } from './harness';

/**
 * Forms that keep the user's work and tell the truth, and lists that show every action on a
 * phone; then a screenshot of every page at 1280 and 390 px.
 */
describe('dashboard forms and phones', () => {
  let harness: Harness;
  let page: Page;
  let eventUrl = '';

  const tab = (name: string) => page.getByRole('tab', { name, exact: true });
  /** A Mantine select: open it, pick the option. */
  async function choose(select: ReturnType<Page['getByLabel']>, option: string) {
    await select.click();
    await page.getByRole('option', { name: option, exact: true }).click();
  }
  /** The page is no wider than the window: nothing sits behind a horizontal scroll. */
  async function noHorizontalScroll() {
    const widths = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      window: window.innerWidth,
    }));
    expect(widths.page).toBeLessThanOrEqual(widths.window);
  }
  async function inView(locator: ReturnType<Page['getByRole']>) {
    const box = await locator.boundingBox();
    const width = page.viewportSize()!.width;
    expect(box, 'element is rendered').not.toBeNull();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(width);
  }

  beforeAll(async () => {
    harness = await startHarness();
    page = await newPage(harness, 'de');
    await signIn(page, harness.owner);
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('leaving an edited prompt asks first; "stay" keeps the text, "discard" leaves', async () => {
    await page.goto(`/bots/${harness.botId}/prompt`);
    const editor = page.getByLabel('Prompt-Text');
    await editor.waitFor();
    const edited = `${await editor.inputValue()}\nAntworte immer in ganzen Sätzen.`;
    await editor.fill(edited);

    await tab('Wissen').click();
    const dialog = page.getByRole('dialog', { name: 'Ungespeicherte Änderungen' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Speichern und weiter' }).waitFor();
    await screenshots(page, 'unsaved-changes-dialog');
    await dialog.getByRole('button', { name: 'Hierbleiben' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(new URL(page.url()).pathname).toBe(`/bots/${harness.botId}/prompt`);
    await expect(editor.inputValue()).resolves.toBe(edited);

    // The sidebar asks too; discarding goes on.
    await page.getByRole('navigation').getByRole('link', { name: 'Veranstaltungen', exact: true }).click();
    await dialog.getByRole('button', { name: 'Verwerfen' }).click();
    await page.waitForURL(/\/events$/);
  });

  it('the event form asks for a price only for paid payment models, and takes start and end time', async () => {
    await page.getByRole('button', { name: 'Veranstaltung anlegen' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(field('Titel')).fill('Rückenfit');
    await dialog.getByLabel(field('Datum')).fill('2027-04-10');
    await dialog.getByLabel('Beginn').fill('18:00');
    await dialog.getByLabel('Ende').fill('19:00');
    await dialog.getByLabel(field('Plätze')).fill('4');
    await expect(dialog.getByLabel(field('Preis')).count()).resolves.toBe(0);
    await choose(dialog.getByLabel('Bezahlung'), 'Vorauszahlung');
    await dialog.getByLabel(field('Preis')).waitFor();
    await dialog.getByRole('button', { name: 'Anlegen' }).click();
    await dialog.getByText('Bitte einen Preis über 0 angeben').waitFor();
    await choose(dialog.getByLabel('Bezahlung'), 'kostenlos');
    await expect(dialog.getByLabel(field('Preis')).count()).resolves.toBe(0);
    await dialog.getByRole('button', { name: 'Anlegen' }).click();
    await page.waitForURL(/\/events\/[0-9a-f-]{36}$/);
    eventUrl = new URL(page.url()).pathname;
    await page.getByText('18:00–19:00').waitFor();
    await page.getByText('Preis: kostenlos').waitFor();
  });

  it('at 390 px the booking cancel action is reachable without horizontal scrolling', async () => {
    await page.getByRole('button', { name: 'Verkauf starten' }).click();
    await page.getByTestId('event-status').getByText('im Verkauf').waitFor();
    await page.getByLabel('Name der Person').fill('Anna');
    await page.getByRole('button', { name: 'Buchen' }).click();
    await page.getByTestId('booking-row').filter({ hasText: 'Anna' }).waitFor();

    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    const cancel = page.getByRole('button', { name: 'Buchung von Anna stornieren' });
    await cancel.scrollIntoViewIfNeeded();
    await inView(cancel);
    await noHorizontalScroll();
    await cancel.click();
    await page.getByRole('dialog').getByRole('button', { name: 'Stornieren' }).click();
    await page.getByTestId('booking-row').filter({ hasText: 'Anna' }).getByText('storniert').waitFor();
  });

  it('at 390 px every bot tab is in view, the Test-Chat tab too', async () => {
    await page.goto(`/bots/${harness.botId}`);
    for (const name of ['Einstellungen', 'Prompt', 'Wissen', 'Ablauf', 'Test-Chat']) await inView(tab(name));
    await noHorizontalScroll();
    await tab('Test-Chat').click();
    await page.waitForURL(/\/chat$/);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('bot settings explain their fields and say when the offline answerer is in use', async () => {
    await page.goto(`/bots/${harness.botId}`);
    await page.getByTestId('offline-model-notice').getByText('Kein KI-Sprachmodell angebunden').waitFor();
    await page.getByText('Wie eng sich der Bot an Ihr Wissen hält').waitFor();
  });

  it('a refused URL import is said in German at the address field', async () => {
    await page.goto(`/bots/${harness.botId}/knowledge`);
    const address = page.getByRole('textbox', { name: 'Adresse' });
    await address.fill('http://127.0.0.1/intern');
    await page.getByRole('button', { name: 'Abrufen', exact: true }).click();
    // The server refuses an address in an internal network; the field says why, in German.
    await page
      .getByText('liegt in einem internen Netz und ist aus Sicherheitsgründen nicht erlaubt')
      .waitFor();
    await expect(address.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByText("Field 'url' refused").count()).resolves.toBe(0);
    await screenshots(page, 'url-import-refused');
    // Editing the address clears the refusal.
    await address.fill('https://www.beispiel.de/');
    await expect(address.getAttribute('aria-invalid')).resolves.not.toBe('true');
  });

  it('photographs every page at 1280 and 390 px', { timeout: 600_000 }, async () => {
    const pages: [string, string][] = [
      ['overview', '/'],
      ['bots', '/bots'],
      ['bot-settings', `/bots/${harness.botId}`],
      ['bot-prompt', `/bots/${harness.botId}/prompt`],
      ['bot-knowledge', `/bots/${harness.botId}/knowledge`],
      ['bot-flow', `/bots/${harness.botId}/flow`],
      ['bot-chat', `/bots/${harness.botId}/chat`],
      ['conversations', '/conversations'],
      ['events', '/events'],
      ['event', eventUrl],
      ['contacts', '/contacts'],
      ['settings', '/settings'],
      ['settings-api', '/settings/api'],
      ['settings-webhooks', '/settings/webhooks'],
      ['settings-team', '/settings/team'],
    ];
    for (const [name, path] of pages) {
      await page.goto(path);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await screenshots(page, `page-${name}`);
    }
    const signedOut = await newPage(harness, 'de');
    await signedOut.goto('/login');
    await signedOut.getByRole('button', { name: 'Anmelden' }).waitFor();
    await screenshots(signedOut, 'page-login');
    await signedOut.context().close();
  });
});
