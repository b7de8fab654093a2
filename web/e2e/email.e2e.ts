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
    // Website comes first; the e-mail part is one click away (and in the address).
    await page.getByText('E-Mail', { exact: true }).click();
    await page.waitForURL(/[?&]part=email/);
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

  it('shows why a mail in an e-mail conversation was not answered', async () => {
    const headers = { 'X-Requested-With': 'parley' };
    const created = await page.request.post(`/api/bots/${harness.botId}/mailboxes`, {
      headers,
      data: {
        kind: 'postmark',
        name: 'Eingang',
        address: 'hallo@studio.example',
        settings: {
          inbound_username: 'pm',
          smtp_host: '127.0.0.1',
          smtp_port: 2525,
          smtp_tls: false,
          username: 'u',
        },
        secrets: { inbound_password: 'inbound-password-123', password: 'smtp-password' },
      },
    });
    expect(created.status()).toBe(201);
    const mailboxId = ((await created.json()) as { id: string }).id;
    const deliver = (messageId: string, extra: { Name: string; Value: string }[] = []) =>
      page.request.post(`/v1/email/inbound/postmark/${mailboxId}`, {
        headers: { authorization: `Basic ${Buffer.from('pm:inbound-password-123').toString('base64')}` },
        data: {
          From: 'anna@kunde.example',
          FromFull: { Email: 'anna@kunde.example' },
          Subject: 'Kurszeiten',
          MessageID: messageId,
          TextBody: 'Wann beginnt der Kurs am Samstag?',
          Headers: [{ Name: 'Message-ID', Value: `<${messageId}@kunde.example>` }, ...extra],
        },
      });
    const first = await deliver('erste');
    expect(await first.json()).toEqual({ status: 'answered' });
    // The same text again, in the thread: the loop guard keeps the bot from answering twice.
    const again = await deliver('zweite', [
      { Name: 'In-Reply-To', Value: '<erste@kunde.example>' },
      { Name: 'References', Value: '<erste@kunde.example>' },
    ]);
    expect(await again.json()).toEqual({ status: 'skipped' });
    const list = await page.request.get('/api/conversations?channel=email');
    const conversation = ((await list.json()) as { data: { id: string; sender_id: string }[] }).data.find(
      (c) => c.sender_id === 'anna@kunde.example',
    )!;
    await page.goto(`/conversations/${conversation.id}`);
    await page.getByText('Empfangene Mails').waitFor();
    await page.getByText('Gleicher Text desselben Absenders wurde vor Kurzem schon beantwortet').waitFor();
    await page.getByText('nicht beantwortet', { exact: true }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'email-conversation');

    // More mails in the thread than one page holds: the rest come with "more".
    for (let i = 0; i < 20; i++) {
      const res = await deliver(`weitere-${i}`, [
        { Name: 'In-Reply-To', Value: '<erste@kunde.example>' },
        { Name: 'References', Value: '<erste@kunde.example>' },
      ]);
      expect(res.status()).toBe(200);
    }
    await page.reload();
    const mails = page.getByTestId('conversation-mails');
    await mails.getByText('Empfangene Mails').waitFor();
    const badges = mails.getByText(/^(beantwortet|nicht beantwortet|fehlgeschlagen)$/);
    await expect.poll(() => badges.count()).toBe(20);
    // Newest first: the first mail (the one answered) is not on the first page.
    expect(await mails.getByText('beantwortet', { exact: true }).count()).toBe(0);
    await mails.getByTestId('conversation-mails-more').click();
    await expect.poll(() => badges.count()).toBe(22);
    await expect.poll(() => mails.getByTestId('conversation-mails-more').count()).toBe(0);
    await mails.getByText('beantwortet', { exact: true }).waitFor();
    await screenshots(page, 'email-conversation-more');

    // The reply to Anna comes back undeliverable: her contact warns, with the server's words.
    const [reply] = await harness.query<{ message_id: string }>(
      "SELECT message_id FROM email_outbound WHERE to_address = 'anna@kunde.example'",
    );
    const bounce = await page.request.post(`/v1/email/inbound/postmark/${mailboxId}`, {
      headers: { authorization: `Basic ${Buffer.from('pm:inbound-password-123').toString('base64')}` },
      data: {
        From: 'MAILER-DAEMON@mx.kunde.example',
        FromFull: { Email: 'MAILER-DAEMON@mx.kunde.example' },
        Subject: 'Undelivered Mail Returned to Sender',
        MessageID: 'dsn-1',
        TextBody: [
          'Final-Recipient: rfc822; anna@kunde.example',
          'Action: failed',
          'Status: 5.1.1',
          'Diagnostic-Code: smtp; 550 5.1.1 <anna@kunde.example>: Recipient address rejected: User unknown',
          '',
          `Message-ID: ${reply!.message_id}`,
        ].join('\n'),
        Headers: [{ Name: 'Message-ID', Value: '<dsn-1@mx.kunde.example>' }],
      },
    });
    expect(await bounce.json()).toEqual({ status: 'skipped' });
    const contacts = await page.request.get('/api/contacts?q=anna@kunde.example');
    const contact = ((await contacts.json()) as { data: { id: string; email: string }[] }).data.find(
      (c) => c.email === 'anna@kunde.example',
    )!;
    await page.goto(`/contacts/${contact.id}`);
    const warning = page.getByTestId('contact-bounced');
    await warning.getByText('Antwort unzustellbar').waitFor();
    await warning.getByText(/User unknown/).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'email-contact-bounced');
  }, 180_000);
});
