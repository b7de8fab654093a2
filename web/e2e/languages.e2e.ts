import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  field,
  newPage,
  screenshots,
  seriousViolations,
  signIn,
  startHarness,
  type Harness,
} from './harness';

describe('sign-in and overview in German and English', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('German: wrong password in words, then the overview; the switch turns it English', async () => {
    const page = await newPage(harness, 'de');
    await page.goto('/login');
    await page.getByRole('heading', { name: 'Anmelden' }).waitFor();
    await page.getByLabel('E-Mail').fill(harness.owner.email);
    await page.getByLabel(field('Passwort')).fill('falsch');
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await page.getByRole('alert').getByText('E-Mail oder Passwort ist falsch.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'login-error-de');
    await signIn(page, harness.owner);
    await page.getByRole('heading', { name: 'Übersicht', level: 1 }).waitFor();
    await page.getByText('Nachrichten pro Tag').waitFor();
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('de');
    await page.getByText('EN', { exact: true }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await page.context().close();
  });

  it('English: sign-in and overview with English texts and number formats', async () => {
    const page = await newPage(harness, 'en');
    await page.goto('/login');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'login-en');
    await signIn(page, harness.owner, { email: 'Email', password: 'Password', submit: 'Sign in' });
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByText('Messages per day').waitFor();
    await page.getByRole('link', { name: 'Conversations' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'overview-en');
    await page.context().close();
  });
});
