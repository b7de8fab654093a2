import { beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import type { AppContext } from '../../src/shared/context.js';
import type { Queryable } from '../../src/db/database.js';
import { memoryCoordination } from '../../src/coordination/index.js';
import { searchForAnswer } from '../../src/modules/knowledge/service.js';
import { decompound, derivedForms, knownTail, queryWords, splitCandidates } from '../../src/shared/text.js';
import { describeEachBackend } from '../helpers/db.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { addEntries } from './helpers.js';

/** A corpus's words, as the search looks them up (surface forms; the database compares stems). */
const CORPUS = new Set([
  'hochzeit',
  'saal',
  'tanz',
  'kurs',
  'zahn',
  'not',
  'dienst',
  'notdienst',
  'tag',
  'karte',
  'day',
  'pass',
  'fahrrads',
  'museum',
  'jahres',
  'wi',
  'fi',
  'leih',
  'sachen',
  'reinigung',
  'termin',
]);
const known = (part: string) => CORPUS.has(part);

describe('decompounding against the corpus', () => {
  it.each([
    // German compounds, with and without a linking element.
    ['hochzeitssaal', ['hochzeit', 'saal']],
    ['zahnnotdienst', ['zahn', 'notdienst']],
    ['tageskarte', ['tag', 'karte']],
    ['reinigungstermin', ['reinigung', 'termin']],
    ['leihsachen', ['leih', 'sachen']],
    // Three parts: the tail splits once more.
    ['hochzeitstanzkurs', ['hochzeit', 'tanz', 'kurs']],
    ['museumsjahreskarte', ['museum', 'jahres', 'karte']],
    // English words written together.
    ['daypass', ['day', 'pass']],
    // Two parts of two letters are no split (the hyphenated form decides "wifi").
    ['wifi', []],
    // A part the corpus lacks: no split (see knownTail).
    ['elektrofahrrads', []],
    ['hubschrauberlandeplatz', []],
    // Words too short, codes and numbers are never split.
    ['tag', []],
    ['as206', []],
    ['2024', []],
  ])('%s → %j', (word, parts) => {
    expect(decompound(word, known)).toEqual(parts);
  });

  it('prefers the split with the longest shorter part', () => {
    // "not|dienst" and "notdienst" are both words: the whole tail wins over n|ot…
    expect(
      decompound('zahnnotdienst', (p) => ['zahn', 'notdienst', 'z', 'ahnnotdienst'].includes(p)),
    ).toEqual(['zahn', 'notdienst']);
  });

  it('looks up every head and tail, the heads without linking elements, and the hyphenated forms', () => {
    const { parts, hyphenated } = splitCandidates('tageskarte');
    expect(parts).toEqual(expect.arrayContaining(['tages', 'tag', 'karte', 'tage']));
    expect(hyphenated).toEqual(expect.arrayContaining(['tages-karte', 't-ageskarte']));
    expect(splitCandidates('wifi').hyphenated).toContain('wi-fi');
    expect(splitCandidates('ebike').hyphenated).toContain('e-bike');
    expect(splitCandidates('checkin').hyphenated).toContain('check-in');
    // Codes, numbers and short words have no split forms.
    expect(splitCandidates('as206')).toEqual({ parts: [], hyphenated: [], derived: [] });
    expect(splitCandidates('abc')).toEqual({ parts: [], hyphenated: [], derived: [] });
  });

  it.each([
    ['prüfung', ['prüfen']],
    ['anmeldungen', ['anmelden']],
    ['wohnung', ['wohnen']],
    // Only a guess, searched with the credit of a compound part and only for a word the corpus lacks.
    ['zeitung', ['zeiten']],
    ['kurs', []],
    ['jung', []],
  ])('derives the verb of the noun %s → %j', (word, forms) => {
    expect(derivedForms(word)).toEqual(forms);
  });

  it('finds the longest known tail of a compound whose head the corpus lacks', () => {
    expect(knownTail('elektrofahrrads', known)).toBe('fahrrads');
    expect(knownTail('landeplatz', known)).toBeUndefined();
  });

  it('keeps a code one query word and splits nothing of it', () => {
    expect(queryWords('Was kostet AS-206 im Wi-Fi?')).toEqual(['as206', 'was', 'kostet', 'im', 'wi', 'fi']);
  });
});

describeEachBackend('search of word forms', (get) => {
  let ctx: AppContext;
  let tenant: TenantFixture;
  let botId: string;
  let ids: Record<string, string>;

  beforeAll(async () => {
    ctx = await createContext(testConfig(), { db: get().db, coordination: memoryCoordination() });
    tenant = await buildTenant(ctx);
    botId = (await tenant.bot()).id;
    const [wifi, pass, hall, parts] = await addEntries(ctx, tenant.id, botId, [
      {
        title: 'The Foundry Cowork – Internet',
        content: 'The Wi-Fi network is called Foundry-Guest; the password is printed on every desk.',
      },
      {
        title: 'The Foundry Cowork – Prices',
        content: 'A day pass costs $25.00 and includes coffee and a locker for the day.',
      },
      {
        title: 'Hotel Seeblick – Feiern',
        content: 'Für Hochzeiten vermieten wir den Saal Seerose samstags; die Miete beträgt 1.250,00 €.',
      },
      {
        title: 'Brandl Ersatzteile – Messer',
        content: 'Das Messer AS-206 passt für Mähwerke ab 2005 und kostet 18,90 €.',
      },
    ]);
    ids = { wifi: wifi!, pass: pass!, hall: hall!, parts: parts! };
  });

  const ask = (query: string) => searchForAnswer(get().db, tenant.id, { botId, query, minScore: 0.4 });

  it.each([
    ['What is the wifi password at The Foundry Cowork?', 'wifi'],
    ['How much is a daypass at The Foundry Cowork?', 'pass'],
    ['Was kostet der Hochzeitssaal im Hotel Seeblick?', 'hall'],
    ['Was kostet das Messer AS-206?', 'parts'],
    ['Passt as206 für ein Mähwerk von 2005?', 'parts'],
  ])('answers "%s" from the entry that writes it differently', async (query, key) => {
    const { hits, decision } = await ask(query);
    expect(decision.answer).toBe(true);
    expect(hits[0]?.entryId).toBe(ids[key]);
    // The decision sees the word in its form: nothing of the question is missing.
    expect(decision.missingTerms).toEqual([]);
  });

  it.each([
    // Hyphenated: the form is searched as the word itself.
    ['What is the wifi password at The Foundry Cowork?', 2],
    // Split: the parts are resolved like words (their close spellings), one statement more.
    ['Was kostet der Hochzeitssaal im Hotel Seeblick?', 3],
    // Every word known: nothing but resolving and searching.
    ['Was kostet das Messer AS-206?', 2],
  ])('looks up the forms of "%s" in the statement that resolves its words', async (query, count) => {
    const db = get().db;
    const statements: string[] = [];
    const counting: Queryable = {
      query: <T>(sql: string, params?: readonly unknown[]) => {
        statements.push(sql);
        return db.query<T>(sql, params);
      },
    };
    // Without a vocabulary version nothing is cached: every word is resolved in the database.
    const { decision } = await searchForAnswer(counting, tenant.id, { botId, query, minScore: 0.4 });
    expect(decision.answer).toBe(true);
    expect(statements).toHaveLength(count);
  });

  it.each([
    'Is there a sauna at The Foundry Cowork?',
    'Hat das Hotel Seeblick einen Hubschrauberlandeplatz?',
    'Was kostet das Messer AS-207?',
  ])('still hands over "%s"', async (query) => {
    const { decision } = await ask(query);
    expect(decision.answer).toBe(false);
  });
});
