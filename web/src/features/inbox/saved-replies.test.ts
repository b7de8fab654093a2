import { describe, expect, it } from 'vitest';
import { expandSavedReplies } from './saved-replies';

const replies = [
  { name: 'zeiten', content: 'Wir sind Mo–Fr 9–17 Uhr da.' },
  { name: 'preis', content: 'Ein Kurs kostet 20 €.' },
];

describe('expandSavedReplies', () => {
  it.each([
    ['/zeiten', 'Wir sind Mo–Fr 9–17 Uhr da.'],
    ['Hallo! /preis ', 'Hallo! Ein Kurs kostet 20 €. '],
    ['/zeiten\n/preis', 'Wir sind Mo–Fr 9–17 Uhr da.\nEin Kurs kostet 20 €.'],
    ['/unbekannt', '/unbekannt'],
    ['/zeit', '/zeit'],
    ['https://example.com/zeiten', 'https://example.com/zeiten'],
    ['kein Kürzel', 'kein Kürzel'],
  ])('%j → %j', (text, expected) => {
    expect(expandSavedReplies(text, replies)).toBe(expected);
  });
});
