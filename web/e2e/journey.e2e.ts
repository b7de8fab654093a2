import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  SHOTS_DIR,
  field,
  newPage,
  screenshots,
  seriousViolations,
  signIn,
  startHarness,
  type Harness,
} from './harness';

/**
 * The journey of a new tenant's staff through the dashboard, in order; each step builds on the
 * one before. Every page visited is checked with axe and photographed at 1280 and 390 px.
 */
describe('dashboard journey', () => {
  let harness: Harness;
  let page: Page;
  let botUrl = '';
  let apiKey = '';

  async function checkPage(name: string) {
    expect(await seriousViolations(page), name).toEqual([]);
    await screenshots(page, name);
  }
  const tab = (name: string) => page.getByRole('tab', { name, exact: true });
  const nav = (name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true });
  async function confirmModal(name: string) {
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name }).click();
    await dialog.waitFor({ state: 'detached' });
  }

  // Each step builds on the one before: after a failure the rest is skipped, not timed out.
  let failed = false;
  beforeEach((context) => {
    if (failed) context.skip();
  });
  afterEach(async (context) => {
    if (context.task.result?.state !== 'fail') return;
    failed = true;
    await page.screenshot({ path: `${SHOTS_DIR}/failure.png`, fullPage: true }).catch(() => {});
  });

  beforeAll(async () => {
    harness = await startHarness();
    page = await newPage(harness, 'de');
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('signs in with the demo login and shows the overview', async () => {
    await page.goto('/');
    await page.waitForURL(/\/login/);
    await checkPage('login');
    await signIn(page, harness.owner);
    await page.getByRole('heading', { name: 'Übersicht', level: 1 }).waitFor();
    await page.getByTestId('messages-used').waitFor();
    await checkPage('overview');
  });

  it('creates a bot', async () => {
    await nav('Bots').click();
    await page.getByRole('heading', { name: 'Bots', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Demo-Bot' }).waitFor();
    await checkPage('bots');
    await page.getByRole('button', { name: 'Bot anlegen' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('Salon-Bot');
    await page.getByRole('dialog').getByRole('button', { name: 'Anlegen' }).click();
    await page.waitForURL(/\/bots\/[0-9a-f-]{36}$/);
    botUrl = new URL(page.url()).pathname;
    await page.getByRole('heading', { name: 'Salon-Bot', level: 1 }).waitFor();
    await page.getByText('Der Bot ist aktiv und beantwortet Nachrichten.').waitFor();
    await checkPage('bot-settings');
  });

  it('adds knowledge and the hit test shows it above the threshold', async () => {
    await tab('Wissen').click();
    await page.getByLabel('Titel').fill('Öffnungszeiten');
    await page.getByLabel('Inhalt').fill('Der Salon ist Montag bis Freitag von 9 bis 18 Uhr geöffnet.');
    await page.getByRole('button', { name: 'Hinzufügen', exact: true }).click();
    await page.getByRole('cell', { name: /^Öffnungszeiten/ }).waitFor();
    await page.getByLabel('Frage wie ein Anrufer').fill('Wann ist der Salon geöffnet?');
    await page.getByRole('button', { name: 'Testen' }).click();
    const rows = page.getByTestId('hit-results').locator('tbody tr');
    await rows.first().waitFor();
    // The entry comes first, above the threshold line, and the chat would use it.
    await expect(rows.nth(0).textContent()).resolves.toContain('Öffnungszeiten');
    await expect(rows.nth(0).textContent()).resolves.toContain('verwendet');
    await expect(rows.nth(1).getAttribute('data-testid')).resolves.toBe('threshold');
    await expect(rows.nth(1).textContent()).resolves.toContain('0,40');
    await checkPage('bot-knowledge');
  });

  it('the test chat answers from that knowledge and names its source', async () => {
    await tab('Test-Chat').click();
    await page.getByLabel('Nachricht').fill('Wann ist der Salon geöffnet?');
    await page.getByRole('button', { name: 'Senden' }).click();
    const reply = page.getByTestId('bot-turn').last();
    await reply.getByTestId('sources').waitFor();
    await expect(reply.textContent()).resolves.toContain('9 bis 18 Uhr');
    await expect(reply.getByTestId('sources').textContent()).resolves.toContain('Öffnungszeiten');
    await checkPage('bot-chat');
  });

  it('saves two prompt versions, compares them and restores the first', async () => {
    await tab('Prompt').click();
    const editor = page.getByLabel('Prompt-Text');
    await editor.fill('Du bist der Assistent des Salons.\nAntworte kurz.');
    await page.getByLabel('Versionsname (optional)').fill('Erste');
    await page.getByRole('button', { name: 'Als neue Version speichern' }).click();
    await page.getByTestId('version-1').waitFor();
    await editor.fill('Du bist der freundliche Assistent des Salons.\nAntworte kurz.');
    await page.getByRole('button', { name: 'Als neue Version speichern' }).click();
    await page.getByTestId('version-2').getByText('aktuell').waitFor();
    await page.getByLabel('Version 1 vergleichen').check();
    await page.getByLabel('Version 2 vergleichen').check();
    const diff = page.getByTestId('prompt-diff');
    await diff.waitFor();
    await expect(diff.textContent()).resolves.toContain('− Du bist der Assistent des Salons.');
    await expect(diff.textContent()).resolves.toContain('+ Du bist der freundliche Assistent des Salons.');
    await checkPage('bot-prompt');
    await page.getByRole('button', { name: 'Version 1 wiederherstellen' }).click();
    await page.getByTestId('version-1').getByText('aktuell').waitFor();
    await expect(editor.inputValue()).resolves.toBe('Du bist der Assistent des Salons.\nAntworte kurz.');
  });

  it('a block without routing is red, and activation is refused with the reason', async () => {
    await tab('Ablauf').click();
    await page.getByLabel('Blockname').fill('Termine');
    await page.getByLabel('Optionen').fill('Montag, Dienstag');
    await page.getByRole('button', { name: 'Block hinzufügen' }).click();
    await page.getByTestId('block-Termine').getByText('rot', { exact: true }).waitFor();
    await page.getByLabel(field('Schritt')).fill('Begrüßung');
    await page.getByRole('button', { name: 'Schritt hinzufügen' }).click();
    await page.getByTestId('flow-graph').getByText('1. Begrüßung').waitFor();
    await checkPage('bot-flow');

    await tab('Einstellungen').click();
    await page.getByRole('button', { name: 'Deaktivieren' }).click();
    await confirmModal('Deaktivieren');
    await page.getByRole('button', { name: 'Aktivieren' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'Aktivierung abgelehnt' });
    await refused.waitFor();
    await expect(refused.textContent()).resolves.toContain('Termine');
    await checkPage('bot-activation-refused');
    await refused.getByRole('link', { name: 'Zum Ablauf und Pre-Flight-Check' }).click();
    await page.waitForURL(/\/flow$/);
  });

  it('after the fix the bot activates', async () => {
    await page.getByLabel('Auslöser von Termine').first().click();
    await page.getByRole('option', { name: 'automatisch' }).click();
    await page.getByTestId('block-Termine').getByText('gelb', { exact: true }).waitFor();
    await page.getByText('Keine roten Blöcke: der Bot kann aktiviert werden.').waitFor();
    await tab('Einstellungen').click();
    await page.getByRole('button', { name: 'Aktivieren' }).click();
    await page.getByText('Der Bot ist aktiv und beantwortet Nachrichten.').waitFor();
    await page.getByRole('button', { name: 'Deaktivieren' }).waitFor();
  });

  it('generates an API key that is shown once', async () => {
    await nav('Einstellungen').click();
    await page.waitForURL(/\/settings\/api$/);
    await page.getByRole('button', { name: 'Neuen Schlüssel erzeugen' }).click();
    // The demo key exists: replacing it is confirmed first.
    await confirmModal('Neuen Schlüssel erzeugen');
    const secret = page.getByTestId('secret-value');
    apiKey = ((await secret.textContent()) ?? '').trim();
    expect(apiKey).toMatch(/^svc_[\w-]{40}$/);
    await page.getByText('er wird nicht noch einmal angezeigt').waitFor();
    await checkPage('settings-api');
    await page.getByRole('button', { name: 'Ich habe ihn gespeichert' }).click();
    await secret.waitFor({ state: 'detached' });
    await page.reload();
    await page.getByRole('button', { name: 'Neuen Schlüssel erzeugen' }).waitFor();
    await expect(page.getByTestId('secret-value').count()).resolves.toBe(0);
  });

  it('the chat endpoint answers that key, and the conversation shows up', async () => {
    const botId = botUrl.split('/')[2]!;
    const response = await fetch(`${harness.baseUrl}/api/bot-chat/${botId}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Wann ist der Salon geöffnet?', sender_id: 'e2e-anrufer' }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { reply: string };
    expect(body.reply).toContain('9 bis 18 Uhr');

    await nav('Gespräche').click();
    const row = page.getByTestId('conversation-row').filter({ hasText: 'e2e-anrufer' });
    await row.waitFor();
    await checkPage('conversations');
    await row.getByRole('link').click();
    await page.getByRole('heading', { name: 'Gesprächsverlauf' }).waitFor();
    await page.getByText('Wann ist der Salon geöffnet?').waitFor();
    await checkPage('conversation');
  });

  it('books an event until it is full; the waitlist moves up on a cancellation', async () => {
    await nav('Veranstaltungen').click();
    await page.getByRole('heading', { name: 'Veranstaltungen', level: 1 }).waitFor();
    await page.getByText('Keine Veranstaltungen').waitFor();
    await checkPage('events-empty');
    await page.getByRole('button', { name: 'Veranstaltung anlegen' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Titel').fill('Yoga am Morgen');
    await dialog.getByLabel('Datum').fill('2027-03-15');
    await dialog.getByLabel('Plätze').fill('2');
    await dialog.getByRole('button', { name: 'Anlegen' }).click();
    await page.waitForURL(/\/events\/[0-9a-f-]{36}$/);
    await page.getByRole('button', { name: 'Verkauf starten' }).click();
    await page.getByTestId('event-status').getByText('im Verkauf').waitFor();

    const book = async (name: string) => {
      await page.getByLabel('Name der Person').fill(name);
      await page.getByRole('button', { name: 'Buchen' }).click();
      await page.getByTestId('booking-row').filter({ hasText: name }).waitFor();
    };
    await book('Anna');
    await book('Ben');
    await page.getByTestId('capacity-free').getByText('0 Plätze frei').waitFor();
    await book('Clara');
    const clara = page.getByTestId('booking-row').filter({ hasText: 'Clara' });
    await clara.getByText('Warteliste #1').waitFor();
    await page.getByTestId('waitlist').getByText('Clara').waitFor();
    await page.getByTestId('capacity-waitlist').getByText('1 auf der Warteliste').waitFor();
    await checkPage('event-full');

    await page.getByRole('button', { name: 'Buchung von Anna stornieren' }).click();
    await confirmModal('Stornieren');
    await clara.getByText('bestätigt').waitFor();
    await page.getByTestId('booking-row').filter({ hasText: 'Anna' }).getByText('storniert').waitFor();
    await page.getByTestId('waitlist').waitFor({ state: 'detached' });
    await page.getByTestId('capacity-waitlist').getByText('0 auf der Warteliste').waitFor();
    await checkPage('event');

    await nav('Veranstaltungen').click();
    await page.getByRole('link', { name: 'Yoga am Morgen' }).waitFor();
    await checkPage('events');
  });

  it('shows contacts and the webhook settings', async () => {
    await nav('Kontakte').click();
    await page.getByRole('link', { name: 'Clara' }).click();
    await page.getByRole('heading', { name: 'Clara', level: 1 }).waitFor();
    await checkPage('contact');
    await nav('Kontakte').click();
    await page.getByRole('link', { name: 'Anna' }).waitFor();
    await checkPage('contacts');
    await nav('Einstellungen').click();
    await tab('Webhooks').click();
    await page.getByText('Noch keine Endpunkte.').waitFor();
    await checkPage('settings-webhooks');
  });

  it('a viewer finds no edit controls', async () => {
    await page.getByRole('button', { name: 'Benutzermenü' }).click();
    await page.getByRole('menuitem', { name: 'Abmelden' }).click();
    await page.waitForURL(/\/login$/);
    await signIn(page, harness.viewer);
    await nav('Bots').click();
    await page.getByRole('link', { name: 'Salon-Bot' }).waitFor();
    await expect(page.getByRole('button', { name: 'Bot anlegen' }).count()).resolves.toBe(0);
    await checkPage('viewer-bots');

    await page.getByRole('link', { name: 'Salon-Bot' }).click();
    await page.getByText('Der Bot ist aktiv und beantwortet Nachrichten.').waitFor();
    for (const name of ['Deaktivieren', 'Speichern', 'Bot löschen']) {
      await expect(page.getByRole('button', { name }).count(), name).resolves.toBe(0);
    }
    await checkPage('viewer-bot');
    await tab('Prompt').click();
    await page.getByTestId('version-1').waitFor();
    await expect(page.getByRole('button', { name: 'Als neue Version speichern' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: /wiederherstellen/ }).count()).resolves.toBe(0);
    await tab('Wissen').click();
    await page.getByRole('cell', { name: /^Öffnungszeiten/ }).waitFor();
    await expect(page.getByRole('button', { name: 'Hinzufügen', exact: true }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Löschen' }).count()).resolves.toBe(0);
    await tab('Ablauf').click();
    await page.getByTestId('block-Termine').waitFor();
    await expect(page.getByRole('button', { name: 'Block hinzufügen' }).count()).resolves.toBe(0);

    await nav('Veranstaltungen').click();
    await page.getByRole('link', { name: 'Yoga am Morgen' }).click();
    await page.getByTestId('booking-row').first().waitFor();
    for (const name of ['Buchen', 'Abschließen', 'Absagen', /stornieren/]) {
      await expect(page.getByRole('button', { name }).count(), String(name)).resolves.toBe(0);
    }
    await checkPage('viewer-event');
    await expect(nav('Einstellungen').count()).resolves.toBe(0);
  });

  it('an ended session leads to sign-in and back to the page', async () => {
    await nav('Gespräche').click();
    await page.getByTestId('conversation-row').first().waitFor();
    await page.context().clearCookies();
    await nav('Kontakte').click();
    await page.waitForURL(/\/login\?next=%2Fcontacts/);
    await page.getByText('Bitte melden Sie sich an, um fortzufahren.').waitFor();
    await page.getByLabel('E-Mail').fill(harness.viewer.email);
    await page.getByLabel(field('Passwort')).fill(harness.viewer.password);
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await page.waitForURL(/\/contacts$/);
    await page.getByRole('heading', { name: 'Kontakte', level: 1 }).waitFor();
  });
});
