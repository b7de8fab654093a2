import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stripReply } from '../../src/modules/email/quotes.js';
import { readEml } from './eml.js';

const DIR = join(import.meta.dirname, 'fixtures', 'customer');
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.eml'))
  .sort();

describe('customer reply corpus', () => {
  const results = files.map((file) => {
    const mail = readEml(join(DIR, file));
    const expected = readFileSync(join(DIR, file.replace(/\.eml$/, '.expected.txt')), 'utf8').trim();
    const got = stripReply(mail.text, mail.html).text;
    return { file, ok: got === expected, got, expected };
  });

  it('holds at least 60 replies from about ten clients in four languages', () => {
    expect(files.length).toBeGreaterThanOrEqual(60);
    const clients = new Set(files.map((f) => f.split('-')[0]));
    expect(clients.size).toBeGreaterThanOrEqual(10);
    for (const language of ['de', 'en', 'fr', 'it'])
      expect(files.some((f) => f.includes(`-${language}`))).toBe(true);
  });

  it('strips at least 95 % exactly', () => {
    const exact = results.filter((r) => r.ok).length;
    const share = exact / results.length;
    console.log(
      `customer corpus: ${exact} of ${results.length} stripped exactly (${(share * 100).toFixed(1)} %)`,
    );
    for (const r of results.filter((x) => !x.ok))
      console.log(`not exact: ${r.file}\n--- got ---\n${r.got}\n--- expected ---\n${r.expected}`);
    expect(share).toBeGreaterThanOrEqual(0.95);
  });
});

describe('stripReply', () => {
  it('keeps the quote and signature apart from the text', () => {
    const result = stripReply(
      'Ja, gern.\n\n-- \nAnna\n\nAm 12.03.2026 um 10:14 schrieb Support <s@x.de>:\n> Passt Ihnen Freitag?',
    );
    expect(result).toEqual({
      text: 'Ja, gern.',
      signature: '--\nAnna',
      quoted: 'Am 12.03.2026 um 10:14 schrieb Support <s@x.de>:\n> Passt Ihnen Freitag?',
    });
  });

  it('does not take a sentence for an attribution or a header block', () => {
    const text = 'On Monday I can come.\nAm Freitag schrieb ich Ihnen schon.\nVon: 10 Uhr\nBis: 12 Uhr';
    expect(stripReply(text).text).toBe(text);
  });

  it('reads the HTML part when the plain part is empty', () => {
    expect(stripReply('', '<div>Hallo</div><blockquote type="cite">alt</blockquote>').text).toBe('Hallo');
  });

  it('returns empty parts for an empty mail', () => {
    expect(stripReply('', null)).toEqual({ text: '', quoted: '', signature: '' });
  });

  it('cuts at a French Outlook block with non-breaking spaces', () => {
    const text =
      'Merci.\n\nDe\u00a0: Support <s@x.fr>\nEnvoyé\u00a0: jeudi 12 mars 2026 10:14\nÀ\u00a0: moi\nObjet\u00a0: RDV\n\nBonjour';
    expect(stripReply(text).text).toBe('Merci.');
  });
});
