import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { newPage, screenshots, seriousViolations, signIn, startHarness, type Harness } from './harness';

/**
 * Bot → Channels → E-mail: a mailbox is connected through the form, listed with its health,
 * and its secret is never shown back (neither on the page nor in the API's answer).
 */
describe('e-mail channel: connect a mailbox', () => {
  let harness: Harness;
  let page: Page;
  const secret = 'graph-secret-never-shown-42';

  beforeAll(async () => {
    harness = await startHarness();
    page = await newPage(harness, 'de');
    await signIn(page, harness.owner);
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('adds a Microsoft 365 mailbox and shows its health without the secret', async () => {
    await page.goto(`/bots/${harness.botId}/channels`);
    await page.getByText('Noch kein Postfach').waitFor();
    await page.getByRole('button', { name: 'Postfach verbinden' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Microsoft 365').click();
    await dialog.getByLabel('Name').fill('Support');
    await dialog.getByLabel('E-Mail-Adresse').fill('support@studio.example');
    await dialog.getByLabel('Mandanten-ID (Entra)').fill('contoso.onmicrosoft.com');
    await dialog.getByLabel('Client-ID der App-Registrierung').fill('11111111-2222-3333-4444-555555555555');
    await dialog.getByLabel('Geheimer Clientschlüssel').fill(secret);
    const soon = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    await dialog.getByLabel('Schlüssel läuft ab am').fill(soon);
    await screenshots(page, 'email-form');
    const saved = page.waitForResponse(
      (r) => r.url().includes('/mailboxes') && r.request().method() === 'POST',
    );
    await dialog.getByRole('button', { name: 'Speichern' }).click();
    const response = await saved;
    expect(response.status()).toBe(201);
    expect(await response.text()).not.toContain(secret);

    const card = page.getByTestId('mailbox-card').filter({ hasText: 'support@studio.example' });
    await card.waitFor();
    await card.getByText(/Clientschlüssel läuft in [45] Tagen ab/).waitFor();
    await expect(card.textContent()).resolves.toContain('Letzte Synchronisierung: noch nie');
    expect(await page.content()).not.toContain(secret);

    // Editing shows the secret as stored, never its value.
    await card.getByRole('button', { name: 'Bearbeiten' }).click();
    await page.getByRole('dialog').getByText('Gespeichert – leer lassen, um es zu behalten').waitFor();
    expect(await page.getByRole('dialog').getByLabel('Geheimer Clientschlüssel').inputValue()).toBe('');
    expect(await page.content()).not.toContain(secret);
    await page.getByRole('dialog').getByRole('button', { name: 'Abbrechen' }).click();

    await card.getByRole('button', { name: 'Nicht beantwortete Mails' }).click();
    await card.getByText('Keine nicht beantworteten Mails.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'email-channel');
  }, 120_000);
});
