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
});
