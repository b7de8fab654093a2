import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metaPayload, signMeta, textMessage } from '../../test/messaging/meta-helpers';
import { startFakeProviders, type FakeProviders } from '../../test/messaging/fake-providers';
import { newPage, screenshots, seriousViolations, signIn, startHarness, type Harness } from './harness';

/**
 * Bots → Channels → Website and the go-live checklist in the dashboard: the widget's switch and
 * allowed origins (validated), the live preview with the real widget, the snippet and policy
 * lines, the publishable key's rotation and the identity secret shown once; the checklist on
 * the bot page with links to where each item is done; a WhatsApp number connected (secrets
 * write-only, the webhook URL to copy, health and the last message received) and the flow page's
 * warning for a block that does not fit WhatsApp. Screenshots at
 * 1280 and 390 px.
 */
describe('dashboard: channels and go-live checklist', () => {
  let harness: Harness;
  let page: Page;
  let fake: FakeProviders;

  beforeAll(async () => {
    // Meta's Graph API: a local fake that serves the number's templates and records what is sent.
    fake = await startFakeProviders({ meta: 'EAAG-e2e-access-token', twilio: { sid: '', token: '' } });
    fake.templates.meta.push({
      id: '5551',
      name: 'termin_erinnerung',
      language: 'de',
      status: 'APPROVED',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Hallo {{1}}, Ihr Kurs am {{2}} findet statt. Kommen Sie?' }],
    });
    // A header parameter, a named one in the body and a URL button's end; and one with a code button.
    fake.templates.meta.push(
      {
        id: '5552',
        name: 'kurs_link',
        language: 'de',
        status: 'APPROVED',
        category: 'UTILITY',
        components: [
          { type: 'HEADER', format: 'TEXT', text: 'Kurs {{1}}', example: { header_text: ['Yoga'] } },
          {
            type: 'BODY',
            text: 'Hallo {{name}}, hier ist Ihr Termin.',
            example: { body_text_named_params: [{ param_name: 'name', example: 'Anna' }] },
          },
          {
            type: 'BUTTONS',
            buttons: [{ type: 'URL', text: 'Termin ansehen', url: 'https://studio.example/t/{{1}}' }],
          },
        ],
      },
      {
        id: '5553',
        name: 'gutschein',
        language: 'de',
        status: 'APPROVED',
        category: 'MARKETING',
        components: [
          { type: 'BODY', text: 'Ihr Gutschein' },
          { type: 'BUTTONS', buttons: [{ type: 'COPY_CODE', example: 'SOMMER10' }] },
        ],
      },
    );
    harness = await startHarness({ WHATSAPP_GRAPH_BASE_URL: fake.graphBase });
    page = await newPage(harness);
    await signIn(page, harness.owner);
  });
  afterAll(async () => {
    await harness?.close();
    await fake?.close();
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

  it('WhatsApp, SMS & phone: connects a WhatsApp number; secrets stay write-only; the card shows the webhook URL and what arrived', async () => {
    await page.goto(`/bots/${harness.botId}/channels?part=phone`);
    await page.getByText('Noch keine Verbindung').waitFor();
    await page.getByRole('button', { name: 'Verbindung hinzufügen' }).click();
    const dialog = page.getByRole('dialog', { name: 'Verbindung hinzufügen' });
    // A Twilio SMS number must be in international format.
    await dialog.getByLabel('Art', { exact: true }).click();
    await page.getByRole('option', { name: 'SMS (Twilio)', exact: true }).click();
    await dialog.getByLabel('Name').fill('Studio-SMS');
    await dialog.getByLabel('Absendernummer').fill('030 123456');
    await dialog.getByRole('button', { name: 'Speichern' }).click();
    await dialog.getByText('Nummer im internationalen Format angeben', { exact: false }).waitFor();

    await dialog.getByLabel('Art', { exact: true }).click();
    await page.getByRole('option', { name: 'WhatsApp (Meta)', exact: true }).click();
    await dialog.getByLabel('Name').fill('Studio-WhatsApp');
    await dialog.getByLabel('Telefonnummer-ID').fill('1098765432');
    await dialog.getByLabel('WhatsApp-Business-Konto-ID').fill('2233445566');
    await dialog.getByLabel('Zugriffstoken').fill('EAAG-e2e-access-token');
    await dialog.getByLabel('App-Geheimnis').fill('e2e-app-secret');
    await dialog.getByLabel('Bestätigungstoken').fill('e2e-verify-token');
    await expect(seriousViolations(page)).resolves.toEqual([]);
    await screenshots(page, 'channels-phone-form');
    await dialog.getByRole('button', { name: 'Speichern' }).click();
    await dialog.waitFor({ state: 'detached' });

    const card = page.getByTestId('connection-card');
    await card.getByText('Studio-WhatsApp').waitFor();
    await expect(card.getByTestId('connection-health').textContent()).resolves.toBe('in Ordnung');
    const webhookUrl = (await card.getByTestId('connection-webhook-url').textContent())!;
    const id = /\/v1\/channels\/([0-9a-f-]{36})\/webhook$/.exec(webhookUrl)?.[1];
    expect(id).toBeDefined();
    // Secrets are never shown again: the page holds none of them.
    const html = await page.content();
    for (const secret of ['EAAG-e2e-access-token', 'e2e-app-secret', 'e2e-verify-token'])
      expect(html).not.toContain(secret);
    await card.getByRole('button', { name: 'Bearbeiten' }).click();
    const edit = page.getByRole('dialog', { name: 'Verbindung bearbeiten' });
    await expect(edit.getByLabel('App-Geheimnis').inputValue()).resolves.toBe('');
    await edit.getByText('Gespeichert – leer lassen, um ihn zu behalten.').first().waitFor();
    await edit.getByRole('button', { name: 'Abbrechen' }).click();

    // A customer's message, signed as Meta signs it, shows on the card as the last one received.
    await expect(card.getByText('Zuletzt empfangen: noch nie', { exact: false }).count()).resolves.toBe(1);
    const raw = JSON.stringify(
      metaPayload('1098765432', { messages: [textMessage('491701234567', 'Hallo, wann habt ihr offen?')] }),
    );
    const signature = signMeta(raw, 'e2e-app-secret');
    const posted = await fetch(`${harness.baseUrl}/v1/channels/${id}/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
      body: raw,
    });
    expect(posted.status).toBe(200);
    await expect
      .poll(
        async () => {
          await page.reload();
          await card.waitFor();
          return card.getByText('Zuletzt empfangen: noch nie', { exact: false }).count();
        },
        { timeout: 15_000 },
      )
      .toBe(0);
    await expect(seriousViolations(page)).resolves.toEqual([]);
    await screenshots(page, 'channels-phone');
  });

  it('WhatsApp after 25 hours: the inbox refuses a free reply in words and sends an approved template', async () => {
    // The message is stored at once; its conversation is written when the bot's turn settles.
    let conversationId: string | undefined;
    await expect
      .poll(
        async () => {
          const [inbound] = await harness.query<{ conversation_id: string }>(
            'SELECT conversation_id FROM channel_inbound WHERE conversation_id IS NOT NULL',
          );
          conversationId = inbound?.conversation_id;
          return conversationId;
        },
        { timeout: 30_000 },
      )
      .toBeDefined();
    // The connection's card reads the templates from Meta and shows their status.
    const card = page.getByTestId('connection-card').filter({ hasText: 'Studio-WhatsApp' });
    await card.getByRole('button', { name: 'Vorlagen einlesen' }).click();
    await card.getByText('termin_erinnerung (de) · APPROVED').waitFor();
    await card.getByText('Vorlagen: 3 freigegeben').waitFor();
    // One the inbox cannot fill says why on hover.
    await card
      .getByTitle(/Code kopieren/)
      .getByText('gutschein (de) · APPROVED')
      .waitFor();
    await screenshots(page, 'channels-whatsapp-templates');

    // Its own page: the channel page stays open for the next case.
    const inbox = await newPage(harness, 'de');
    await signIn(inbox, harness.owner);
    await inbox.goto(`/inbox?c=${conversationId}`);
    // The demo bot may have handed the question over already (waiting) or still hold it.
    await inbox.getByRole('button', { name: /^(Übernehmen|Vom Bot übernehmen)$/ }).click();
    await inbox.getByTestId('inbox-state').filter({ hasText: 'Bei einer Person' }).waitFor();
    // While the window is open a template is there on demand.
    await inbox.getByTestId('window-open').waitFor();
    await inbox.getByRole('button', { name: 'Vorlage senden' }).click();
    await inbox.getByTestId('window-open-template').getByLabel('Vorlage senden').waitFor();
    await screenshots(inbox, 'inbox-whatsapp-window-open');
    await inbox.getByRole('button', { name: 'Vorlage ausblenden' }).click();
    await expect(inbox.getByTestId('window-open-template').count()).resolves.toBe(0);

    // 25 hours later the window is closed.
    await harness.query(`UPDATE channel_inbound SET provider_ts = provider_ts - interval '25 hours'`);
    await inbox.reload();
    const closed = inbox.getByTestId('window-closed');
    await closed.getByText('Das 24-Stunden-Fenster ist geschlossen').waitFor();
    // A free-form reply is refused in words.
    await inbox.getByLabel('Antwort oder Notiz').fill('Sind Sie noch interessiert?');
    await inbox.getByRole('button', { name: 'Antworten' }).click();
    await inbox
      .getByText('nicht geschrieben. Senden Sie eine freigegebene Vorlage', { exact: false })
      .first()
      .waitFor();

    // Each input says what it fills; the preview shows header and body filled in.
    await closed.getByLabel('Vorlage senden').click();
    await inbox.getByRole('option', { name: 'kurs_link (de)' }).click();
    await closed.getByLabel('Kopfzeile: Parameter 1').fill('Pilates');
    await expect(closed.getByLabel('Parameter „name“').getAttribute('placeholder')).resolves.toBe(
      'z. B. Anna',
    );
    await closed.getByLabel('Parameter „name“').fill('Frau Weber');
    await closed.getByText('https://studio.example/t/{{1}}').waitFor();
    await closed.getByLabel('Ende des Links von „Termin ansehen“').fill('k42');
    await expect(inbox.getByTestId('template-preview').textContent()).resolves.toContain(
      'Kurs Pilates\n\nHallo Frau Weber, hier ist Ihr Termin.',
    );
    await screenshots(inbox, 'inbox-whatsapp-template-link');
    // One with a code button cannot be filled here: it says so and offers no send.
    await closed.getByLabel('Vorlage senden').click();
    await inbox.getByRole('option', { name: 'gutschein (de)' }).click();
    await closed.getByTestId('template-unsupported').getByText('Code kopieren', { exact: false }).waitFor();
    await expect(closed.getByRole('button', { name: 'Vorlage senden' }).count()).resolves.toBe(0);

    await closed.getByLabel('Vorlage senden').click();
    await inbox.getByRole('option', { name: 'termin_erinnerung (de)' }).click();
    await closed.getByLabel('Parameter 1').fill('Frau Weber');
    await closed.getByLabel('Parameter 2').fill('3. Dezember');
    const filled = 'Hallo Frau Weber, Ihr Kurs am 3. Dezember findet statt. Kommen Sie?';
    await expect(inbox.getByTestId('template-preview').textContent()).resolves.toContain(filled);
    await expect(seriousViolations(inbox)).resolves.toEqual([]);
    await screenshots(inbox, 'inbox-whatsapp-template');
    await closed.getByRole('button', { name: 'Vorlage senden' }).click();
    await inbox.getByTestId('inbox-transcript').getByText(filled).waitFor();
    await expect
      .poll(() => fake.messages('meta').filter((m) => m.body.type === 'template').length, { timeout: 15_000 })
      .toBe(1);
    expect(fake.schemaViolations).toEqual([]);
    await inbox.context().close();
  });

  it('the flow page warns which block does not fit WhatsApp, and which limit', async () => {
    const created = await page.request.post(`/api/bots/${harness.botId}/blocks`, {
      headers: { 'X-Requested-With': 'parley' },
      data: {
        name: 'Kurswahl',
        block_type: 'buttons',
        items: [
          { id: 'yoga', title: 'Yoga' },
          { id: 'pilates', title: 'Pilates' },
          { id: 'ruecken', title: 'Rückenfit für Einsteiger am Abend' },
          { id: 'spinning', title: 'Spinning' },
        ],
      },
    });
    expect(created.status()).toBe(201);
    await page.goto(`/bots/${harness.botId}/flow`);
    const warnings = page.getByTestId('messaging-warnings');
    await warnings.getByText('Hinweise für WhatsApp').waitFor();
    const count = warnings.locator('[data-limit="buttons_count"]');
    await expect(count.textContent()).resolves.toContain('Anzahl der Buttons');
    await expect(count.textContent()).resolves.toContain(
      'Block „Kurswahl“: 4 Buttons – WhatsApp zeigt höchstens 3 Antwort-Buttons.',
    );
    const title = warnings.locator('[data-limit="button_title"]');
    await expect(title.textContent()).resolves.toContain('Länge eines Button-Titels');
    await expect(title.textContent()).resolves.toContain('„Rückenfit für Einsteiger am Abend“');
    await expect(seriousViolations(page)).resolves.toEqual([]);
    await screenshots(page, 'flow-messaging-warnings');
    await page.goto(`/bots/${harness.botId}/channels?part=phone`);
  });

  it('Telefon: a number with its language, greeting and hand-over hours; a wrong time span is refused in words', async () => {
    await page.getByRole('button', { name: 'Verbindung hinzufügen' }).click();
    const dialog = page.getByRole('dialog', { name: 'Verbindung hinzufügen' });
    await dialog.getByLabel('Art', { exact: true }).click();
    await page.getByRole('option', { name: 'Telefon (Twilio)', exact: true }).click();
    await dialog.getByLabel('Name').fill('Studio-Telefon');
    await dialog.getByLabel('Account SID').fill(`AC${'7'.repeat(32)}`);
    await dialog.getByLabel('Auth Token').fill('e2e-voice-auth-token');
    await dialog.getByLabel('Telefonnummer', { exact: true }).fill('+493012345679');
    await dialog.getByLabel('Sprache zu Beginn des Anrufs').click();
    await page.getByRole('option', { name: 'Englisch', exact: true }).click();
    await dialog.getByLabel('Begrüßung').fill('Welcome to the studio!');
    await dialog.getByLabel('Zeitzone').fill('Europe/Berlin');
    await dialog.getByLabel('Montag').fill('9-17');
    await dialog.getByRole('button', { name: 'Speichern' }).click();
    await dialog.getByText('Zeiten als HH:MM-HH:MM', { exact: false }).waitFor();
    await dialog.getByLabel('Montag').fill('09:00-12:00, 13:00-17:30');
    await screenshots(page, 'channels-voice-form');
    await dialog.getByRole('button', { name: 'Speichern' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByTestId('connection-card').filter({ hasText: 'Studio-Telefon' }).waitFor();
    // The settings come back when the connection is edited.
    await page
      .getByTestId('connection-card')
      .filter({ hasText: 'Studio-Telefon' })
      .getByRole('button', { name: 'Bearbeiten' })
      .click();
    const edit = page.getByRole('dialog', { name: 'Verbindung bearbeiten' });
    await expect(edit.getByLabel('Montag').inputValue()).resolves.toBe('09:00-12:00, 13:00-17:30');
    await expect(edit.getByLabel('Begrüßung').inputValue()).resolves.toBe('Welcome to the studio!');
    await expect(edit.getByLabel('Sprache zu Beginn des Anrufs').inputValue()).resolves.toBe('Englisch');
    await edit.getByRole('button', { name: 'Abbrechen' }).click();
  });
});
