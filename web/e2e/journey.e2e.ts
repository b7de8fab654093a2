import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
  // A webhook receiver that refuses every delivery, so the log shows attempts and retries.
  let receiver: Server;
  let receiverUrl = '';
  let received = 0;

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
    receiver = createServer((request, response) => {
      received += 1;
      request.resume();
      response.writeHead(500, { 'content-type': 'text/plain' }).end('receiver down');
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await harness?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });
  /** A Mantine select: open it, pick the option. */
  async function choose(select: ReturnType<Page['getByLabel']>, option: string) {
    await select.click();
    await page.getByRole('option', { name: option, exact: true }).click();
  }

  it('signs in with the demo login and shows the overview', async () => {
    await page.goto('/');
    await page.waitForURL(/\/login/);
    await checkPage('login');
    await signIn(page, harness.owner);
    await page.getByRole('heading', { name: 'Übersicht', level: 1 }).waitFor();
    await page.getByTestId('messages-used').waitFor();
    await page.getByTestId('plan').getByText('Business').waitFor();
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
    // A new bot starts inactive; the checklist says what is missing before it goes live.
    await page.getByText(/^Der Bot ist nicht aktiv/).waitFor();
    await page.getByTestId('golive-checklist').getByText('1 von 5 erledigt').waitFor();
    await expect(page.getByTestId('activation-missing').textContent()).resolves.toBe(
      'Noch offen: Prompt gespeichert, Wissen hinterlegt, Ein Kanal verbunden, Testgespräch geführt',
    );
    await checkPage('bot-settings');
  });

  it('adds knowledge and the hit test shows it above the threshold', async () => {
    await tab('Wissen').click();
    await page.getByLabel('Titel').fill('Öffnungszeiten');
    await page.getByLabel('Inhalt').fill('Der Salon ist Montag bis Freitag von 9 bis 18 Uhr geöffnet.');
    await page.getByRole('button', { name: 'Hinzufügen', exact: true }).click();
    await page.getByRole('cell', { name: /^Öffnungszeiten/ }).waitFor();
    await page.getByLabel('Frage wie ein Kunde').fill('Wann ist der Salon geöffnet?');
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

  it('edits a knowledge entry and adds one for all bots', async () => {
    await page.getByRole('button', { name: '„Öffnungszeiten“ bearbeiten' }).click();
    const dialog = page.getByRole('dialog');
    const content = dialog.getByLabel(field('Inhalt'));
    await expect.poll(() => content.inputValue()).toContain('9 bis 18 Uhr');
    await content.fill(
      'Der Salon ist Montag bis Freitag von 9 bis 18 Uhr geöffnet, samstags von 10 bis 14 Uhr.',
    );
    await dialog.getByLabel('Schlagwörter').fill('Zeiten');
    await dialog.getByLabel('Schlagwörter').press('Enter');
    await checkPage('bot-knowledge-edit');
    await dialog.getByRole('button', { name: 'Speichern' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: /samstags von 10 bis 14 Uhr/ }).waitFor();

    await page.getByText('Alle Bots', { exact: true }).click();
    await page.getByLabel(field('Titel')).fill('Parken');
    await page.getByLabel(field('Inhalt')).fill('Parkplätze gibt es im Hof hinter dem Salon.');
    await page.getByRole('button', { name: 'Hinzufügen', exact: true }).click();
    await page.getByRole('row').filter({ hasText: 'Parken' }).getByText('alle Bots').waitFor();
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
    await page.getByRole('button', { name: 'Aktivieren' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'Aktivierung abgelehnt' });
    await refused.waitFor();
    await expect(refused.textContent()).resolves.toContain('Termine');
    // The reason in the user's language, from the pre-flight result (the API's message is English).
    await refused.getByText(/^Kein Routing: weder ein Auslöser/).waitFor();
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

  it('edits a block: an action per option, a condition and the default exit', async () => {
    await tab('Ablauf').click();
    await page.getByRole('button', { name: 'Termine bearbeiten' }).click();
    const dialog = page.getByRole('dialog');
    const monday = dialog.getByTestId('option-item-1');
    await choose(monday.getByLabel('Aktion'), 'Gehe zu Schritt');
    await choose(monday.getByLabel('Zielschritt'), '1. Begrüßung');
    await dialog.getByRole('button', { name: 'Bedingung hinzufügen' }).click();
    const condition = dialog.getByTestId('condition-row');
    await condition.getByLabel('Feld').fill('wunschtag');
    await condition.getByLabel('Wert').fill('Montag');
    await dialog.getByRole('button', { name: 'Ausgang hinzufügen' }).click();
    await choose(dialog.getByTestId('exit-row').getByLabel('Ziel'), 'Ende des Gesprächs');
    await checkPage('bot-flow-block-edit');
    await dialog.getByRole('button', { name: 'Speichern' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByTestId('block-Termine').getByText('grün', { exact: true }).waitFor();
    await page.getByTestId('step-list').getByText('Begrüßung').waitFor();
    await checkPage('bot-flow-edited');
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

  it('edits the event; a refusal of the API shows at its field', async () => {
    await page.getByRole('link', { name: 'Yoga am Morgen' }).click();
    await page.getByRole('button', { name: 'Bearbeiten' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(field('Plätze')).fill('1');
    await dialog.getByLabel(field('Ort')).fill('Studio 2');
    await dialog.getByRole('button', { name: 'Speichern' }).click();
    await dialog.getByText('Es sind bereits 2 Plätze gebucht; weniger geht nicht.').waitFor();
    await expect(dialog.getByLabel(field('Plätze')).getAttribute('aria-invalid')).resolves.toBe('true');
    await checkPage('event-edit-refused');
    await dialog.getByLabel(field('Plätze')).fill('3');
    await dialog.getByRole('button', { name: 'Speichern' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('Ort: Studio 2').waitFor();
    await page.getByTestId('capacity-free').getByText('1 Platz frei').waitFor();
    await page.getByTestId('notifications').getByText('Buchung storniert').waitFor();
    await checkPage('event-edited');
  });

  it('shows contacts and the webhook settings', async () => {
    await nav('Kontakte').click();
    await page.getByRole('link', { name: 'Clara' }).click();
    await page.getByRole('heading', { name: 'Clara', level: 1 }).waitFor();
    await page.getByTestId('contact-bookings').getByRole('link', { name: 'Yoga am Morgen' }).waitFor();
    await page.getByTestId('contact-bookings').getByText('bestätigt').waitFor();
    await page.getByTestId('contact-leads').getByText('Keine Anfragen').waitFor();
    await checkPage('contact');
    await nav('Kontakte').click();
    await page.getByRole('link', { name: 'Anna' }).waitFor();
    await checkPage('contacts');
    await nav('Einstellungen').click();
    await tab('Webhooks').click();
    await page.getByText('Noch keine Endpunkte.').waitFor();
    await checkPage('settings-webhooks');
  });

  it('logs webhook deliveries with their attempts and sends one again', async () => {
    await page.getByLabel(field('Adresse')).fill(receiverUrl);
    await page.getByRole('combobox', { name: 'Ereignisse' }).click({ force: true });
    await page.getByRole('option', { name: 'Veranstaltungsstatus geändert' }).click();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Hinzufügen', exact: true }).click();
    await page.getByTestId('secret-value').waitFor();
    await page.getByRole('button', { name: 'Ich habe ihn gespeichert' }).click();

    // A status change of an event is delivered; the receiver refuses it.
    const headers = { 'x-requested-with': 'parley' };
    const created = await page.request.post('/api/events', {
      headers,
      data: { title: 'Pilates', event_date: '2027-04-01', capacity_total: 5 },
    });
    expect(created.status()).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const selling = await page.request.patch(`/api/events/${id}/status`, {
      headers,
      data: { status: 'selling' },
    });
    expect(selling.status()).toBe(200);
    await harness.deliverWebhooks();
    expect(received).toBe(1);

    await page.getByRole('button', { name: 'Zustellungen' }).click();
    const log = page.getByTestId('delivery-log');
    const row = log.getByTestId('delivery-row').first();
    await row.getByText('Veranstaltungsstatus geändert').waitFor();
    await row.getByRole('cell', { name: '500', exact: true }).waitFor();
    await row.getByText('wartet').waitFor();
    await checkPage('settings-webhook-deliveries');
    await row.getByRole('button', { name: 'Versuche' }).click();
    await page.getByTestId('delivery-attempts').getByRole('cell', { name: '500', exact: true }).waitFor();
    await checkPage('settings-webhook-attempts');
    await page.keyboard.press('Escape');
    await page.getByTestId('delivery-attempts').waitFor({ state: 'detached' });
    await row.getByRole('button', { name: 'Veranstaltungsstatus geändert erneut senden' }).click();
    await page.getByText('Das Ereignis wird erneut zugestellt.').waitFor();
    await log.getByTestId('delivery-row').nth(1).waitFor();
  });

  it('the owner invites a team member who accepts and changes the role; the last owner is not offered a demotion', async () => {
    await tab('Team').click();
    await page.waitForURL(/\/settings\/team$/);
    await page.getByRole('button', { name: 'Person einladen' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(field('E-Mail')).fill('tom@parley.local');
    await choose(dialog.getByLabel('Rolle'), 'Betrachter');
    await dialog.getByRole('button', { name: 'Einladen', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    // Without SMTP the link is shown to the inviter, who passes it on.
    const link = (await page.getByTestId('accept-link').textContent()) ?? '';
    await page.getByTestId('invitation-row').filter({ hasText: 'tom@parley.local' }).waitFor();
    await checkPage('settings-team-invited');
    await page.getByRole('button', { name: 'Weitergegeben' }).click();

    // Tom opens the link in a browser of his own and sets his name and password.
    const tomPage = await newPage(harness, 'de');
    await tomPage.goto(`/invitation${new URL(link).hash}`);
    await tomPage.getByText('Sie wurden in das Team von').waitFor();
    await tomPage.getByLabel('Vorname').fill('Tom');
    await tomPage.getByLabel(field('Passwort')).fill('tom-password-1');
    await tomPage.getByLabel(field('Passwort wiederholen')).fill('tom-password-1');
    expect(await seriousViolations(tomPage), 'accept-invitation').toEqual([]);
    await screenshots(tomPage, 'accept-invitation');
    await tomPage.getByRole('button', { name: 'Einladung annehmen' }).click();
    await tomPage.getByText('Willkommen im Team').waitFor();
    await tomPage.context().close();

    await page.reload();
    await page.getByTestId('team-row').filter({ hasText: 'tom@parley.local' }).waitFor();
    await expect(page.getByTestId('invitation-row').count()).resolves.toBe(0);
    const tom = page.getByTestId('team-row').filter({ hasText: 'tom@parley.local' });
    await tom.getByText('noch nie').waitFor();
    await choose(tom.getByLabel('Rolle von Tom'), 'Bearbeiter');
    await page.getByText('Tom ist jetzt Bearbeiter.').waitFor();
    await checkPage('settings-team');

    // The last owner is offered neither another role nor deactivation: the API would refuse both.
    const me = page.getByTestId('team-row').filter({ hasText: '(Sie)' });
    await me.getByText('Inhaber').waitFor();
    await expect(me.getByLabel(/^Rolle von/).count()).resolves.toBe(0);
    await expect(me.getByRole('button').count()).resolves.toBe(0);
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
    await expect(page.getByRole('button', { name: /löschen|bearbeiten/i }).count()).resolves.toBe(0);
    await tab('Ablauf').click();
    await page.getByTestId('block-Termine').waitFor();
    await expect(page.getByRole('button', { name: 'Block hinzufügen' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: /bearbeiten/ }).count()).resolves.toBe(0);

    await nav('Veranstaltungen').click();
    await page.getByRole('link', { name: 'Yoga am Morgen' }).click();
    await page.getByTestId('booking-row').first().waitFor();
    for (const name of ['Buchen', 'Abschließen', 'Absagen', 'Bearbeiten', /stornieren/]) {
      await expect(page.getByRole('button', { name }).count(), String(name)).resolves.toBe(0);
    }
    await checkPage('viewer-event');

    // Settings hold only the own password for a viewer: no API key, webhooks or team list.
    await nav('Einstellungen').click();
    await page.waitForURL(/\/settings\/team$/);
    await page.getByRole('heading', { name: 'Eigenes Passwort' }).waitFor();
    await expect(page.getByRole('tab').count()).resolves.toBe(1);
    await expect(page.getByRole('button', { name: 'Person hinzufügen' }).count()).resolves.toBe(0);
    await expect(page.getByTestId('team-row').count()).resolves.toBe(0);
    await checkPage('viewer-settings');
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
