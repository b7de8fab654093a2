import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { field, newPage, signIn, startHarness, type Harness } from './harness';

/*
 * Sign-in on a slow link, submitted the moment the form is there (a password manager, a fast
 * typist): it lands on a page behind sign-in every time, asks GET /api/me at most once before,
 * never after, and fetches no code of the signed-in pages before the sign-in.
 */
const SLOW_LINK = { latency: 150, throughput: (1.6 * 1024 * 1024) / 8 };

async function throttled(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: SLOW_LINK.latency,
    downloadThroughput: SLOW_LINK.throughput,
    uploadThroughput: SLOW_LINK.throughput,
  });
}

describe('sign-in that always works', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('20 times in a row on a throttled link, submitted at once: signed in every time', async () => {
    // The address a new visitor types, a bookmark, and the sign-in page itself.
    const starts = ['/', '/inbox?view=all', '/login'];
    const outcomes: string[] = [];
    for (let run = 0; run < 20; run++) {
      const page = await newPage(harness);
      await throttled(page);
      const requests: string[] = [];
      page.on('request', (request) => requests.push(new URL(request.url()).pathname));
      const start = starts[run % starts.length]!;
      await page.goto(start, { waitUntil: 'commit' });
      const email = page.getByLabel('E-Mail');
      await email.waitFor();
      await email.fill(harness.owner.email);
      await page.getByLabel(field('Passwort')).fill(harness.owner.password);
      const beforeSubmit = [...requests];
      await page.getByLabel(field('Passwort')).press('Enter');
      await page.getByRole('navigation').first().waitFor({ timeout: 30_000 });
      // Still signed in a moment later: no late answer sends the user back.
      await page.waitForTimeout(800);
      const path = new URL(page.url()).pathname;
      const afterSubmit = requests.slice(beforeSubmit.length);
      outcomes.push(`${start} → ${path}`);
      expect(path, `run ${run + 1} from ${start}`).not.toMatch(/^\/login/);
      expect(path).toBe(start === '/login' ? '/' : new URL(start, 'http://x').pathname);
      expect(beforeSubmit.filter((p) => p === '/api/me').length).toBeLessThanOrEqual(1);
      expect(afterSubmit.filter((p) => p === '/api/me')).toEqual([]);
      // Nothing of the signed-in pages before the sign-in: the sign-in page's code only.
      expect(beforeSubmit.filter((p) => /\/assets\/(Shell|OverviewPage|InboxPage|query)-/.test(p))).toEqual(
        [],
      );
      await page.context().close();
    }
    console.log(`sign-in, throttled, submitted at once: ${outcomes.length}/20 signed in`);
  }, 600_000);

  it('a wrong password says so; the session ends with a sign-out and the next sign-in works', async () => {
    const page = await newPage(harness);
    await page.goto('/login');
    await page.getByLabel('E-Mail').fill(harness.owner.email);
    await page.getByLabel(field('Passwort')).fill('wrong-password');
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await page.getByRole('alert').getByText('E-Mail oder Passwort ist falsch.').waitFor();
    await expect(signIn(page, { ...harness.owner, password: 'wrong-again' })).rejects.toThrow(/refused/);
    await page.goto('/login');
    await signIn(page, harness.owner);
    await page.getByRole('button', { name: 'Benutzermenü' }).click();
    await page.getByRole('menuitem', { name: 'Abmelden' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    await page.goto('/bots');
    await page.waitForURL((url) => url.pathname === '/login');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/bots');
    await signIn(page, harness.owner);
    expect(new URL(page.url()).pathname).toBe('/bots');
    await page.context().close();
  });

  it('an agent lands on the inbox, the first page of their navigation', async () => {
    const page = await newPage(harness);
    await signIn(page, harness.agent);
    await page.waitForURL((url) => url.pathname === '/inbox');
    await page.getByRole('heading', { name: 'Posteingang', level: 1 }).waitFor();
    await page.context().close();
  });
});
