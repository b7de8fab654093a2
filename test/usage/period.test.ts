import { describe, expect, it } from 'vitest';
import { daysOf, messagesRemaining, usageMonth } from '../../src/modules/usage/period.js';

describe('usageMonth', () => {
  const now = new Date('2026-05-17T22:30:00Z');
  it.each([
    [undefined, '2026-05', '2026-05-01', '2026-05-31', 31],
    ['2026-02', '2026-02', '2026-02-01', '2026-02-28', 28],
    ['2028-02', '2028-02', '2028-02-01', '2028-02-29', 29],
    ['2025-12', '2025-12', '2025-12-01', '2025-12-31', 31],
    ['2026-04', '2026-04', '2026-04-01', '2026-04-30', 30],
  ])('%s → %s', (value, month, firstDay, lastDay, days) => {
    const period = usageMonth(value, now);
    expect(period).toMatchObject({ month, firstDay, lastDay });
    expect(period.end.getTime() - period.start.getTime()).toBe(days * 86_400_000);
    const list = daysOf(period);
    expect(list).toHaveLength(days);
    expect(list[0]).toBe(firstDay);
    expect(list.at(-1)).toBe(lastDay);
  });

  it.each(['2026-13', '2026-00', '2026-5', 'May 2026', '2026-05-01'])('refuses %s', (value) => {
    expect(() => usageMonth(value, now)).toThrow("Field 'month'");
  });
});

describe('messagesRemaining', () => {
  it.each([
    [1000, 0, 1000],
    [1000, 999, 1],
    [1000, 1000, 0],
    [1000, 1200, 0],
    [0, 0, 0],
    [null, 5000, null],
  ])('quota %s, used %s → %s', (quota, used, expected) => {
    expect(messagesRemaining(quota, used)).toBe(expected);
  });
});
