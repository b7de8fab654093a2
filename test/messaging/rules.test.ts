import { describe, expect, it } from 'vitest';
import {
  HANDLED_ERROR_CODES,
  WINDOW_CLOSED_TEXT,
  burstDelayMs,
  isOptIn,
  isOptOut,
  providerError,
  quietWindowMs,
  splitSms,
  statusRank,
  twilioStatus,
  windowState,
} from '../../src/modules/messaging/rules.js';

describe('SMS splitting', () => {
  it('keeps a short answer whole and unnumbered', () => {
    expect(splitSms('Hallo. Wie geht es?')).toEqual(['Hallo. Wie geht es?']);
    expect(splitSms('x'.repeat(1600))).toHaveLength(1);
  });

  it.each([1601, 3000, 5000])(
    'cuts %i characters at sentence ends into numbered parts of at most 1,600',
    (n) => {
      const sentence = 'Dies ist ein Satz mit einigen Wörtern. ';
      const text = sentence.repeat(Math.ceil(n / sentence.length)).slice(0, n);
      const parts = splitSms(text);
      expect(parts.length).toBeGreaterThan(1);
      parts.forEach((p, i) => {
        expect([...p].length).toBeLessThanOrEqual(1600);
        expect(p.startsWith(`(${i + 1}/${parts.length}) `)).toBe(true);
      });
      // Every cut but the last ends a sentence.
      for (const p of parts.slice(0, -1)) expect(p.endsWith('.')).toBe(true);
      expect(
        parts
          .map((p) => p.replace(/^\(\d+\/\d+\) /, ''))
          .join(' ')
          .replace(/\s+/g, ' '),
      ).toBe(text.trim().replace(/\s+/g, ' '));
    },
  );

  it('cuts a text without sentence ends at spaces, and counts emoji as one character', () => {
    const parts = splitSms('wort '.repeat(700));
    expect(parts).toHaveLength(3);
    const emoji = splitSms('😀'.repeat(1700));
    expect(emoji.every((p) => [...p].length <= 1600)).toBe(true);
  });
});

describe('opt-out words', () => {
  it.each([
    ['STOP', true],
    ['stop', true],
    ['Stop.', true],
    ['UNSUBSCRIBE', true],
    ['END', true],
    ['QUIT', true],
    ['STOPALL', true],
    ['REVOKE', true],
    ['OPTOUT', true],
    ['CANCEL', true],
    ['ABMELDEN', true],
    ['Stopp', true],
    ['arrêt', true],
    ['BASTA', true],
    ['stop the music', false],
    ['Bitte nicht stoppen', false],
  ])('%s → opt-out %s', (text, out) => expect(isOptOut(text)).toBe(out));

  it.each([
    ['START', true],
    ['start', true],
    ['Starten Sie', false],
  ])('%s → opt-in %s', (text, yes) => expect(isOptIn(text)).toBe(yes));
});

describe('the 24-hour window', () => {
  const now = new Date('2026-01-02T12:00:00Z');
  it.each([
    [null, false],
    [new Date('2026-01-02T11:00:00Z'), true],
    [new Date('2026-01-01T12:00:01Z'), true],
    [new Date('2026-01-01T12:00:00Z'), false],
    [new Date('2026-01-01T11:00:00Z'), false],
  ])('last customer message %s → open %s', (last, open) => expect(windowState(last, now).open).toBe(open));

  it('tells the remaining time', () => {
    expect(windowState(new Date('2026-01-02T11:00:00Z'), now).remainingMs).toBe(23 * 3600_000);
  });
});

describe('statuses never move backwards', () => {
  it('orders them', () => {
    const order = ['queued', 'sending', 'unknown', 'accepted', 'sent', 'delivered', 'read'];
    for (let i = 1; i < order.length; i++)
      expect(statusRank(order[i]!)).toBeGreaterThan(statusRank(order[i - 1]!));
    expect(statusRank('failed')).toBeGreaterThan(statusRank('read'));
    expect(statusRank('nonsense')).toBe(-1);
  });
  it.each([
    ['queued', 'accepted'],
    ['sent', 'sent'],
    ['delivered', 'delivered'],
    ['undelivered', 'undelivered'],
    ['failed', 'failed'],
    ['read', 'read'],
    ['receiving', null],
  ])('Twilio %s → %s', (given, mapped) => expect(twilioStatus(given)).toBe(mapped));
});

describe('provider error codes', () => {
  it.each([
    ['130429', undefined, 'backoff'],
    ['131056', undefined, 'backoff'],
    ['131048', undefined, 'refuse'],
    ['131026', undefined, 'refuse'],
    ['131047', undefined, 'refuse'],
    ['132000', undefined, 'refuse'],
    ['190', 401, 'unhealthy'],
    [null, 401, 'unhealthy'],
    ['21610', 400, 'refuse'],
    ['63016', 400, 'refuse'],
    ['20003', 401, 'unhealthy'],
    [null, 503, 'backoff'],
    [null, 429, 'backoff'],
    ['999999', 400, 'refuse'],
  ] as const)('%s (HTTP %s) → %s', (code, status, handling) =>
    expect(providerError(code, status).handling).toBe(handling),
  );

  it('words the window and the opt-out', () => {
    expect(providerError('131047').text).toBe(WINDOW_CLOSED_TEXT);
    expect(providerError('63016').windowClosed).toBe(true);
    expect(providerError('21610').optedOut).toBe(true);
    expect(HANDLED_ERROR_CODES).toEqual(
      expect.arrayContaining([
        '130429',
        '131056',
        '131048',
        '131026',
        '131047',
        '132000',
        '190',
        '21610',
        '63016',
      ]),
    );
  });
});

describe('bursts', () => {
  it.each([
    // first, last, now, quiet → delay
    [0, 0, 0, 1500, 1500],
    [0, 1000, 1000, 1500, 1500],
    [0, 1000, 2500, 1500, 0],
    [0, 5500, 5500, 1500, 500],
    [0, 5900, 5900, 6000, 100],
  ])('first %i, last %i, now %i, quiet %i → wait %i', (first, last, now, quiet, delay) =>
    expect(burstDelayMs(first, last, now, quiet)).toBe(delay),
  );

  it('clamps the quiet window to 0–6 s, default 1.5 s', () => {
    expect(quietWindowMs(undefined)).toBe(1500);
    expect(quietWindowMs(10_000)).toBe(6000);
    expect(quietWindowMs(-1)).toBe(0);
  });
});
