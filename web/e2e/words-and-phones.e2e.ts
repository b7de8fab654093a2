import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPage, screenshots, signIn, startHarness, type Harness } from './harness';

/*
 * Words, not codes, on every page (an untranslated text key, a channel's or status's code, a
 * visitor's generated id, a model's code name), and the inbox, review and contact pages on a
 * phone: nothing sticks out of its card, nothing behind a horizontal scroll.
 */
const RAW_CODES: [string, RegExp][] = [
  [
    'text key',
    /\b(channels|roles|people|conversations|review|inbox|numbers|nav|unanswered|contacts)\.[a-zA-Z_]+\b/,
  ],
  ['channel code after a dot', /·\s*(api|widget|email|test|whatsapp|sms|voice|webhook)\b/],
  ['visitor id', /\bwv_[A-Za-z0-9]/],
  ['model code', /\b(claude|gpt)-[\w.-]+/i],
  ['status code', /\b(handed_over|ended)\b/],
];

async function rawCodes(page: Page, skip: string[] = []): Promise<string[]> {
  const text = await page.locator('body').innerText();
  return RAW_CODES.filter(([name]) => !skip.includes(name)).flatMap(([name, pattern]) => {
    const found = text.match(pattern);
    return found ? [`${name}: "${found[0]}"`] : [];
  });
}

/** Elements sticking out of their card (or the window), and the page's horizontal scroll. */
async function outsideTheirCard(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    if (document.documentElement.scrollWidth > window.innerWidth + 1)
      problems.push(
        `page ${document.documentElement.scrollWidth} px wide in a ${window.innerWidth} px window`,
      );
    for (const card of document.querySelectorAll<HTMLElement>(
      'main .mantine-Card-root, main .mantine-Paper-root',
    )) {
      const box = card.getBoundingClientRect();
      if (box.width === 0) continue;
      for (const element of card.querySelectorAll<HTMLElement>(
        'button, a, p, span, input, textarea, .mantine-Badge-root',
      )) {
        const inner = element.getBoundingClientRect();
        if (inner.width === 0 || inner.height === 0) continue;
        // Inside a scrolling table the row may be wider than the card: that is scrolled, not cut.
        if (element.closest('.mantine-ScrollArea-root, [data-scroll-x], .mantine-Table-scrollContainer'))
          continue;
        if (inner.right > box.right + 1 || inner.left < box.left - 1)
          problems.push(
            `"${(element.innerText || element.getAttribute('aria-label') || element.tagName).slice(0, 40)}" ${Math.round(inner.left)}–${Math.round(inner.right)} outside its card ${Math.round(box.left)}–${Math.round(box.right)}`,
          );
      }
    }
    // A text wider than its own box (a long word, a button's label) is cut off or runs over what follows.
    for (const element of document.querySelectorAll<HTMLElement>('main p, main .mantine-Button-label')) {
      if (element.closest('.mantine-ScrollArea-root, .mantine-Table-scrollContainer')) continue;
      if (element.scrollWidth > element.clientWidth + 1)
        problems.push(
          `"${element.innerText.slice(0, 40)}" is cut off (${element.scrollWidth} px in ${element.clientWidth} px)`,
        );
    }
    return problems;
  });
}

describe('words and phones', () => {
  let harness: Harness;
  let page: Page;
  let conversationId = '';

  beforeAll(async () => {
    harness = await startHarness();
    // A website visitor's generated id, a long word without spaces and a long answer.
    const res = await fetch(`${harness.baseUrl}/api/bot-chat/${harness.botId}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${harness.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        message:
          'Habt ihr am Samstag von 10 bis 16 Uhr geöffnet? Buchungsnummer ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ABCDEFGHIJ',
        sender_id: 'wv_7f3a9c2e1b4d8a6f0c5e7f3a9c2e1b4d',
      }),
    });
    expect(res.status).toBe(200);
    conversationId = ((await res.json()) as { conversation_id: string }).conversation_id;
    // The same visitor asks for a person: the conversation waits in the inbox.
    const handover = await fetch(`${harness.baseUrl}/api/bot-chat/${harness.botId}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${harness.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        message: 'Ich möchte mit einem Mitarbeiter sprechen',
        sender_id: 'wv_7f3a9c2e1b4d8a6f0c5e7f3a9c2e1b4d',
      }),
    });
    expect(handover.status).toBe(200);
    page = await newPage(harness, 'de');
    await signIn(page, harness.owner);
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('no page shows a code instead of a word', async () => {
    const bot = `/bots/${harness.botId}`;
    const pages = [
      '/',
      '/bots',
      bot,
      `${bot}/knowledge`,
      `${bot}/channels`,
      '/inbox',
      '/conversations',
      `/conversations/${conversationId}`,
      '/events',
      '/contacts',
      '/settings/team',
      '/settings/saved-replies',
      `${bot}/chat`,
    ];
    const found: string[] = [];
    for (const path of pages) {
      await page.goto(path);
      await page.locator('main h1').first().waitFor();
      await page.waitForLoadState('load');
      await page.waitForTimeout(700);
      for (const problem of await rawCodes(page)) found.push(`${path}: ${problem}`);
      // A visitor of the website or the chat API is no caller: that word belongs to the phone.
      if (/Anrufer/.test(await page.locator('main').innerText())) found.push(`${path}: "Anrufer"`);
    }
    expect(found).toEqual([]);
    // The inbox names the visitor without a contact by a short tag of their id.
    await page.goto('/inbox');
    await page.getByRole('main').getByText('Besucher 7f3a').first().waitFor();
  });

  it('inbox, review and contacts at 390 px: nothing outside its card', async () => {
    const found: string[] = [];
    for (const [name, path] of [
      ['inbox', '/inbox'],
      ['review', `/conversations/${conversationId}`],
      ['contacts', '/contacts'],
    ] as const) {
      await page.goto(path);
      await page.locator('main h1').first().waitFor();
      await page.waitForTimeout(700);
      await screenshots(page, `words-phones-${name}`);
      await page.setViewportSize({ width: 390, height: 844 });
      await page.waitForTimeout(500);
      for (const problem of await outsideTheirCard(page)) found.push(`${name}: ${problem}`);
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    expect(found).toEqual([]);
  });
});
