import { describe, expect, it } from 'vitest';
import { parseCreatedRange } from '../../src/modules/conversations/date-range.js';

describe('parseCreatedRange', () => {
  it.each([
    [undefined, undefined, {}],
    ['2026-05-01', undefined, { from: '2026-05-01T00:00:00.000Z' }],
    [undefined, '2026-05-01', { before: '2026-05-02T00:00:00.000Z' }],
    [
      '2026-05-01T06:30:00Z',
      '2026-05-01T09:00:00+02:00',
      { from: '2026-05-01T06:30:00.000Z', until: '2026-05-01T07:00:00.000Z' },
    ],
    ['2026-05-01', '2026-05-01', { from: '2026-05-01T00:00:00.000Z', before: '2026-05-02T00:00:00.000Z' }],
    ['2026-02-28T23:59:59.123456Z', undefined, { from: '2026-02-28T23:59:59.123Z' }],
    [
      '2026-12-31',
      '2026-12-31T23:59:59Z',
      { from: '2026-12-31T00:00:00.000Z', until: '2026-12-31T23:59:59.000Z' },
    ],
  ])('from %s to %s', (from, to, expected) => {
    const range = parseCreatedRange(from, to);
    const asText = Object.fromEntries(Object.entries(range).map(([k, v]) => [k, (v as Date).toISOString()]));
    expect(asText).toEqual(expected);
  });

  it.each([
    ['2026-02-30', undefined, "'from'"],
    ['2026-13-01', undefined, "'from'"],
    ['yesterday', undefined, "'from'"],
    ['2026-05-01T10:00:00', undefined, "'from'"],
    [undefined, '05/01/2026', "'to'"],
    [undefined, '2026-05-01T25:00:00Z', "'to'"],
    ['2026-05-02', '2026-05-01', "'to' must not lie before 'from'"],
    ['2026-05-01T12:00:00Z', '2026-05-01T11:59:59Z', "'to' must not lie before 'from'"],
  ])('refuses from %s to %s', (from, to, text) => {
    expect(() => parseCreatedRange(from, to)).toThrow(text);
  });
});
