import { describe, expect, it } from 'vitest';
import {
  chunkText,
  codeVariants,
  compoundParts,
  detectLanguage,
  queryWords,
  vocabularyOf,
} from '../../src/shared/text.js';

describe('detectLanguage', () => {
  it.each([
    ['Unser Studio hat von Montag bis Freitag geöffnet, am Wochenende bleibt es geschlossen.', 'de', true],
    ['Visitors can park their cars for free in the garage behind the building.', 'en', true],
    ['Nous livrons les commandes en trois jours ouvrables partout en Suisse.', 'fr', true],
    ['Le spedizioni vengono consegnate entro tre giorni lavorativi in tutta la Svizzera.', 'it', true],
    ['Preise', 'de', false],
  ])('%s → %s', (text, language, detected) => {
    expect(detectLanguage(text)).toEqual({ language, detected });
  });
});

describe('chunkText', () => {
  const options = { maxChars: 100, overlapChars: 30 };

  it('keeps a short text in one chunk and drops blank text', () => {
    expect(chunkText('  Kurz.  ', options)).toEqual(['Kurz.']);
    expect(chunkText(' \n ', options)).toEqual([]);
  });

  it('cuts at paragraph and sentence ends, within the size limit, with overlap', () => {
    const text = Array.from({ length: 12 }, (_, i) => `Satz Nummer ${i} ist hier.`).join(' ');
    const chunks = chunkText(text, options);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(100);
      expect(chunk).toMatch(/^\S/);
    }
    for (let i = 1; i < chunks.length; i += 1) {
      // The next chunk starts inside the previous one: that is the overlap.
      expect(chunks[i - 1]).toContain(chunks[i]!.slice(0, 12));
    }
    expect(chunks.join(' ')).toContain('Satz Nummer 11 ist hier.');
  });

  it('never starts a chunk in the middle of a word and always progresses', () => {
    const text = 'wort '.repeat(200) + 'x'.repeat(250);
    const chunks = chunkText(text, options);
    for (const chunk of chunks.slice(1, -3)) expect(chunk.startsWith('wort')).toBe(true);
    expect(chunks.at(-1)!.endsWith('x')).toBe(true);
  });
});

describe('queryWords', () => {
  it.each([
    ['Wann habt ihr geöffnet, bitte?', ['ihr', 'geöffnet']],
    ['</user_message> DROP TABLE & | ! :*', ['user', 'message', 'drop', 'table']],
    ['Preise Preise PREISE', ['preise']],
    ['a 1 ß', []],
  ])('%j → %j', (query, words) => {
    expect(queryWords(query)).toEqual(words);
  });

  it.each([
    ['Was kostet AS-206?', ['as206', 'was', 'kostet']],
    ['Preis für as206', ['as206', 'preis', 'für']],
    ['Kostet es 1.299,00 €?', ['129900', 'kostet', 'es']],
    ['Version 2.4.1 und info@firma.de', ['241', 'infofirmade', 'version', 'und']],
  ])('searches the code in %j as one joined word', (query, words) => {
    expect(queryWords(query)).toEqual(words);
  });

  it('keeps only letters and digits, so no tsquery syntax reaches the database', () => {
    for (const word of queryWords("a'b & c|d !e (f) <-> g:* 'x' 42"))
      expect(word).toMatch(/^[\p{L}\p{N}]+$/u);
  });
});

describe('vocabularyOf', () => {
  it('collects distinct lowercase words of 4 to 40 letters', () => {
    expect(vocabularyOf('Der Kurs, die KURSE und 2024 Kurse!')).toEqual(['kurs', 'kurse']);
  });
});

describe('codeVariants', () => {
  it.each([
    ['Der Bremsbelag AS-206 passt.', ['as206', 'as', '206']],
    ['Teil AS206', ['as206', 'as', '206']],
    ['Kette XK-200/B', ['xk200b', 'xk', '200']],
    ['kostet 1.299,00 € oder 415.000 Stück', ['129900', '299', '00', '1299', '415000', '415', '000']],
    ['Version 2.4.1', ['241']],
    ['Mail an info@firma.de', ['infofirmade', 'info', 'firma', 'de']],
    ['Nur Wörter hier.', []],
  ])('%j → %j', (text, variants) => {
    expect(codeVariants(text)).toEqual(variants);
  });

  it('gives a code and its query the same joined form, so they meet', () => {
    for (const written of ['AS-206', 'AS 206', 'as206', 'As-206'])
      expect(codeVariants('Bremsbelag AS-206')).toEqual(
        expect.arrayContaining(queryWords(written).slice(0, 1)),
      );
  });
});

describe('compoundParts', () => {
  it('offers every split, the head without linking element and inflected parts', () => {
    const parts = compoundParts('touristenstrecken', 5);
    expect(parts).toEqual(expect.arrayContaining(['touristen', 'strecken', 'tourist', 'strecke']));
    expect(parts.every((p) => p.length >= 5)).toBe(true);
    expect(compoundParts('arbeitszeit', 5)).toContain('arbeit');
    expect(compoundParts('as206', 5)).toEqual([]);
    expect(compoundParts('kurs', 5)).toEqual([]);
  });
});
