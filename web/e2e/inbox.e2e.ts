import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { newPage, screenshots, seriousViolations, signIn, startHarness, type Harness } from './harness';

/**
 * People in the loop: a customer asks the demo bot something it cannot answer (chat API) → the
 * inbox shows it live → a person claims and replies → the reply is in the customer's
 * conversation → the person gives it back and the bot answers again.
 */
describe('inbox: a hand-over from the customer to a person and back', () => {
  let harness: Harness;
  let page: Page;
  const question = 'Wie wird das Wetter morgen in Zürich?';
  const answer = 'Morgen wird es sonnig, der Kurs findet draußen statt.';

  const chat = async (body: object) => {
    const res = await fetch(`${harness.baseUrl}/api/bot-chat/${harness.botId}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${harness.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    harness = await startHarness();
    page = await newPage(harness, 'de');
    await signIn(page, harness.owner);
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('runs the hand-over end to end', async () => {
    await page.goto('/inbox');
    await page.getByText('Niemand wartet').waitFor();

    // The customer asks; the open inbox shows the conversation without a reload.
    const first = await chat({ message: question, sender_id: 'kundin-42' });
    expect(first.status).toBe(200);
    const conversationId = first.body.conversation_id as string;
    const row = page.getByTestId('inbox-row').filter({ hasText: question });
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('Bot hatte keine Antwort');
    // The navigation's unread badge counts it.
    await page
      .getByRole('link', { name: /Posteingang/ })
      .getByText('1')
      .waitFor();
    await screenshots(page, 'inbox-waiting');

    // While it waits the bot stays silent.
    const silent = await chat({ message: 'Hallo?', conversation_id: conversationId });
    expect(silent.status).toBe(409);

    await row.click();
    await page.getByRole('button', { name: 'Übernehmen' }).click();
    await page.getByTestId('inbox-state').filter({ hasText: 'Bei einer Person' }).waitFor();
    await page.getByLabel('Antwort oder Notiz').fill(answer);
    await page.getByRole('button', { name: 'Antworten' }).click();
    await page.getByTestId('inbox-transcript').getByText(answer).waitFor();
    await page.getByLabel('Antwort oder Notiz').fill('Kundin fragt oft nach Outdoor-Kursen.');
    await page.getByRole('button', { name: 'Als Notiz speichern' }).click();
    await page.getByText('Interne Notizen').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'inbox-conversation');

    // The reply is in the customer's conversation (the API's view), the note is not.
    const transcript = await fetch(`${harness.baseUrl}/v1/conversations/${conversationId}`, {
      headers: { authorization: `Bearer ${harness.apiKey}` },
    });
    const body = (await transcript.json()) as { messages: { role: string; content: string }[] };
    expect(body.messages.map((m) => m.content)).toContain(answer);
    expect(JSON.stringify(body)).not.toContain('Outdoor-Kursen');
    // And in the dashboard's conversation view.
    const view = await newPage(harness, 'de');
    await signIn(view, harness.owner);
    await view.goto(`/conversations/${conversationId}`);
    await view.getByText(answer).waitFor();
    await view.context().close();

    // Give back: the bot answers the next message again.
    await page.getByRole('button', { name: 'An den Bot zurückgeben' }).click();
    await page.getByTestId('inbox-state').filter({ hasText: 'Beim Bot' }).waitFor();
    await page.getByTestId('inbox-row').first().waitFor({ state: 'detached' });
    const again = await chat({ message: 'Danke! Und wann öffnet ihr?', conversation_id: conversationId });
    expect(again.status).toBe(200);

    // The review shows the bot's reply without knowledge and the hand-over; staff rate it.
    await page.goto(`/conversations/${conversationId}`);
    await page.getByText(answer).waitFor();
    await page.getByText('übergeben: keine Antwort').first().waitFor();
    const verdict = page.getByTestId('reply-verdict').first();
    await verdict.getByLabel('Notiz zu dieser Antwort').fill('Wetterfragen gehören ins Wissen.');
    await verdict.getByRole('button', { name: 'Schlecht' }).click();
    await page.getByText('Bewertet von', { exact: false }).first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'conversation-review');

    // The question is among the unanswered ones; one click fills a knowledge entry with it and
    // the person's answer, which is then saved.
    await page.goto(`/bots/${harness.botId}/knowledge`);
    const unanswered = page.getByTestId('unanswered');
    await unanswered.getByText(question).waitFor();
    await unanswered.getByRole('button', { name: `Eintrag anlegen für: ${question}` }).click();
    await expect(page.getByLabel('Inhalt').inputValue()).resolves.toBe(answer);
    await page.getByRole('button', { name: 'Hinzufügen', exact: true }).click();
    await page.getByRole('cell', { name: question }).first().waitFor();

    // Now the same question is answered from that entry, without a hand-over.
    const known = await chat({ message: question, sender_id: 'kunde-43' });
    expect(known.status).toBe(200);
    expect(known.body.knowledge_used).toBe(true);
    expect((known.body.sources as { title: string }[])[0]?.title).toBe(question);

    // The overview's numbers and charts.
    await page.goto('/');
    await page.getByTestId('numbers-charts').waitFor();
    await page.getByTestId('figure-conversations').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'overview-numbers');
  });

  it('saved replies are kept in the settings and typed as /name in the reply box', async () => {
    await page.goto('/settings/saved-replies');
    await page.getByRole('heading', { name: 'Neue gespeicherte Antwort' }).waitFor();
    const name = page.getByLabel('Kurzname');
    const text = page.getByRole('textbox', { name: /^Text/ });
    await name.fill('Zeiten!');
    await text.fill('Wir sind Mo–Fr da.');
    await page.getByRole('button', { name: 'Antwort speichern' }).click();
    await page.getByText('Nur Kleinbuchstaben, Ziffern', { exact: false }).waitFor();
    await name.fill('zeiten');
    await page.getByRole('button', { name: 'Antwort speichern' }).click();
    const list = page.getByRole('table');
    await list.getByText('/zeiten').waitFor();
    // Edit it; a second one is deleted after the question.
    await page.getByRole('button', { name: '/zeiten bearbeiten' }).click();
    await expect(name.inputValue()).resolves.toBe('zeiten');
    await text.fill('Wir sind Mo–Fr 9–17 Uhr für Sie da.');
    await page.getByRole('button', { name: 'Speichern', exact: true }).click();
    await list.getByText('Wir sind Mo–Fr 9–17 Uhr für Sie da.').waitFor();
    await name.fill('weg');
    await text.fill('Gleich wieder weg.');
    await page.getByRole('button', { name: 'Antwort speichern' }).click();
    await list.getByText('/weg').waitFor();
    await page.getByRole('button', { name: '/weg löschen' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Löschen' }).click();
    await list.getByText('/weg').waitFor({ state: 'detached' });
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'saved-replies');

    // In the inbox, /zeiten becomes the text.
    const waiting = await chat({
      message: 'Ich möchte mit einem Mitarbeiter sprechen',
      sender_id: 'kunde-7',
    });
    expect(waiting.status).toBe(200);
    await page.goto('/inbox');
    await page.getByTestId('inbox-row').filter({ hasText: 'kunde-7' }).click();
    await page.getByRole('button', { name: 'Übernehmen' }).click();
    const reply = page.getByLabel('Antwort oder Notiz');
    await reply.fill('Hallo! /zeiten');
    await expect(reply.inputValue()).resolves.toBe('Hallo! Wir sind Mo–Fr 9–17 Uhr für Sie da.');
  });

  it('a message a channel guard refused is a quiet line in the timeline: "Nicht beantwortet, weil …"', async () => {
    // The bot's website chat, with a daily budget of one message.
    const site = 'https://kurse.example';
    const settings = await page.evaluate(
      async ({ botId, site }) => {
        const res = await fetch(`/api/bots/${botId}/widget`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json', 'x-requested-with': 'parley' },
          body: JSON.stringify({ enabled: true, allowed_origins: [site], daily_message_budget: 1 }),
        });
        return { status: res.status, body: (await res.json()) as { publishable_key: string } };
      },
      { botId: harness.botId, site },
    );
    expect(settings.status).toBe(200);
    const widget = (path: string, body: object, token?: string) =>
      fetch(`${harness.baseUrl}${path}`, {
        method: 'POST',
        headers: {
          origin: site,
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(body),
      });
    const session = (await (
      await widget('/v1/widget/sessions', { publishable_key: settings.body.publishable_key })
    ).json()) as { token: string };
    // The visitor asks for a person (the day's one message), then writes again: over the budget.
    const first = await widget(
      '/v1/widget/messages',
      { text: 'Ich möchte mit einem Mitarbeiter sprechen' },
      session.token,
    );
    expect(first.status).toBe(200);
    const over = await widget('/v1/widget/messages', { text: 'Ist noch jemand da?' }, session.token);
    expect(over.status).toBe(429);

    await page.goto('/inbox');
    await page.getByTestId('inbox-row').filter({ hasText: 'Website-Widget' }).first().click();
    const line = page.getByTestId('inbox-refusal');
    await line
      .getByText('Nicht beantwortet, weil das Tageslimit an Nachrichten des Chats erreicht ist', {
        exact: false,
      })
      .waitFor();
    await line.getByText('Ist noch jemand da?', { exact: false }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'inbox-refusal');
  });

  it('everyone sets their own name and picture; a bot gets business hours', async () => {
    await page.goto('/settings/team');
    await page.getByRole('heading', { name: 'Eigenes Profil' }).waitFor();
    const picture = page.getByLabel('Bild (Adresse)');
    await picture.fill('http://bilder.example/anna.png');
    await page.getByRole('button', { name: 'Profil speichern' }).click();
    await page.getByText('Die Adresse muss mit https:// beginnen', { exact: false }).waitFor();
    await page.getByLabel('Vorname').fill('Anna');
    await picture.fill('https://bilder.example/anna.png');
    await page.getByRole('button', { name: 'Profil speichern' }).click();
    await page.getByText('Ihr Profil wurde gespeichert.').waitFor();
    const me = await page.evaluate(async () => (await fetch('/api/me')).json());
    expect(me.user).toMatchObject({ first_name: 'Anna', avatar_url: 'https://bilder.example/anna.png' });
    await screenshots(page, 'own-profile');

    await page.goto(`/bots/${harness.botId}/channels`);
    await page.getByRole('heading', { name: 'Geschäftszeiten' }).waitFor();
    await page.getByLabel('Menschen antworten nur zu bestimmten Zeiten').click({ force: true });
    const monday = page.getByLabel('Montag');
    await expect(monday.inputValue()).resolves.toBe('09:00–17:00');
    await monday.fill('9 bis 17');
    await page.getByText('Zeiten bitte als 09:00–17:00 angeben', { exact: false }).first().waitFor();
    await monday.fill('09:00–12:00, 13:00–17:00');
    await page.getByLabel('Samstag').fill('10:00–14:00');
    // Without the service's SMTP the page says that no address is asked for.
    await expect(page.getByTestId('reply-email').textContent()).resolves.toContain('nicht eingerichtet');
    await page.getByRole('button', { name: 'Speichern', exact: true }).click();
    await page.getByText('Gespeichert').first().waitFor();
    const settings = await page.evaluate(
      async (botId) => (await fetch(`/api/bots/${botId}/widget`)).json(),
      harness.botId,
    );
    expect(settings.business_hours.hours).toEqual(
      expect.arrayContaining([
        { day: 1, open: '09:00', close: '12:00' },
        { day: 1, open: '13:00', close: '17:00' },
        { day: 6, open: '10:00', close: '14:00' },
      ]),
    );
    expect(settings.business_hours.hours).toHaveLength(7);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'business-hours');
  });
});
