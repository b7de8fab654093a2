import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPage, screenshots, seriousViolations, signIn, startHarness, type Harness } from './harness';

/**
 * Bots → Channels → Website and the go-live checklist in the dashboard: the widget's switch and
 * allowed origins (validated), the live preview with the real widget, the snippet and policy
 * lines, the publishable key's rotation and the identity secret shown once; the checklist on
 * the bot page with links to where each item is done. Screenshots at 1280 and 390 px.
 */
describe('dashboard: channels and go-live checklist', () => {
  let harness: Harness;
  let page: Page;

  beforeAll(async () => {
    harness = await startHarness();
    page = await newPage(harness);
    await signIn(page, harness.owner);
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('the checklist on the bot page says what is missing and links there', async () => {
    await page.goto(`/bots/${harness.botId}`);
    const checklist = page.getByTestId('golive-checklist');
    await checklist.waitFor();
    // The demo bot has a prompt and knowledge; no channel and no test conversation yet.
    await expect(page.getByTestId('golive-prompt').getAttribute('data-done')).resolves.toBe('true');
    await expect(page.getByTestId('golive-knowledge').getAttribute('data-done')).resolves.toBe('true');
    await expect(page.getByTestId('golive-channel').getAttribute('data-done')).resolves.toBe('false');
    await expect(seriousViolations(page)).resolves.toEqual([]);
    await screenshots(page, 'golive-checklist');
    await checklist.getByRole('link', { name: 'Kanal verbinden' }).click();
    await page.waitForURL(/\/channels$/);
  });

  it('Website: origins are validated, the preview shows the real widget, the snippet names the key', async () => {
    await page.getByRole('heading', { name: 'Zugang' }).waitFor();
    const origins = page.getByRole('combobox', { name: 'Erlaubte Websites' });
    await origins.fill('kurse.example/pfad');
    await origins.press('Enter');
    await page.getByRole('button', { name: 'Speichern' }).click();
    await page.getByText('„kurse.example/pfad“ ist keine Website-Adresse', { exact: false }).waitFor();
    await origins.press('Backspace');
    await origins.fill('https://www.kurse.example');
    await origins.press('Enter');
    await page.getByLabel('Begrüßung').fill('Willkommen im Kursstudio!');
    await page.getByRole('button', { name: 'Speichern' }).click();
    await page.getByText('Gespeichert').first().waitFor();

    const key = (await page.getByTestId('publishable-key').textContent())!;
    expect(key).toMatch(/^pk_/);
    await expect(page.getByTestId('snippet').textContent()).resolves.toContain(`data-key="${key}"`);
    await expect(page.getByTestId('csp-lines').textContent()).resolves.toContain(
      `connect-src ${harness.baseUrl};`,
    );

    const preview = page.frameLocator('[data-testid="widget-preview"]');
    await preview.getByRole('dialog', { name: 'Demo-Bot' }).waitFor();
    await preview.getByText('Willkommen im Kursstudio!').waitFor();

    // The switches save at once; they show the stored state when the answer came.
    for (const name of ['Widget auf Websites eingeschaltet', 'Teilbarer Link eingeschaltet']) {
      const toggle = page.getByLabel(name);
      await toggle.click({ force: true });
      await expect.poll(() => toggle.isChecked()).toBe(true);
    }
    await page.getByTestId('share-link').waitFor();
    await expect(seriousViolations(page)).resolves.toEqual([]);
    await screenshots(page, 'channels-website');
  });

  it('rotates the publishable key after a confirmation, and shows the identity secret once', async () => {
    const before = await page.getByTestId('publishable-key').textContent();
    await page.getByRole('button', { name: 'Schlüssel erneuern' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Schlüssel erneuern' }).click();
    await expect.poll(() => page.getByTestId('publishable-key').textContent()).not.toBe(before);

    await page.getByRole('button', { name: 'Identitätsschlüssel erstellen' }).click();
    const secret = page.getByTestId('secret-value');
    await expect(secret.textContent()).resolves.toMatch(/^wis_/);
    await page.getByRole('button', { name: 'Ich habe ihn gespeichert' }).click();
    await secret.waitFor({ state: 'detached' });
    await page.getByText('Ein Identitätsschlüssel ist hinterlegt.', { exact: false }).waitFor();
  });

  it('the checklist follows: a channel is connected', async () => {
    await page.getByRole('tab', { name: 'Einstellungen' }).click();
    await expect.poll(() => page.getByTestId('golive-channel').getAttribute('data-done')).toBe('true');
    await expect(page.getByTestId('golive-channel').textContent()).resolves.toContain('Website-Widget');
  });
});
