import { describe, expect, it } from 'vitest';
import { chosenItem, spokenChoices } from '../../src/modules/voice/speech/choices.js';
import { speakable } from '../../src/modules/voice/speech/normalise.js';
import { voiceLanguageOf, type VoiceLanguage } from '../../src/modules/voice/speech/numbers.js';
import { confirmation } from '../../src/modules/voice/speech/phrases.js';

type Case = [lang: VoiceLanguage, written: string, spoken: string];

const TIMES: Case[] = [
  ['de', 'Wir öffnen um 14:30.', 'Wir öffnen um vierzehn Uhr dreißig.'],
  ['de', 'Von 9:00 bis 18 Uhr', 'Von neun Uhr bis achtzehn Uhr.'],
  ['de', 'Beginn 1:00 Uhr', 'Beginn ein Uhr.'],
  ['de', 'Treffpunkt 14.30 Uhr', 'Treffpunkt vierzehn Uhr dreißig.'],
  ['en', 'We open at 14:30.', 'We open at two thirty p.m.'],
  ['en', 'From 9:05 to 12:00', 'From nine oh five a.m. to noon.'],
  ['fr', 'Ouverture à 14h30.', 'Ouverture à quatorze heures trente.'],
  ['fr', 'Dès 1:00', 'Dès une heure.'],
  ['it', 'Apriamo alle 14:30.', 'Apriamo alle quattordici e trenta.'],
  ['it', 'Dalle 9:00', 'Dalle nove.'],
];

const DATES: Case[] = [
  [
    'de',
    'Der Kurs ist am 24.12.2026.',
    'Der Kurs ist am vierundzwanzigsten Dezember zweitausendsechsundzwanzig.',
  ],
  ['de', 'Termin: 3.5.', 'Termin: dritter Mai.'],
  ['de', 'Start 2026-01-01', 'Start ersten Januar zweitausendsechsundzwanzig.'],
  ['en', 'The course is on 2026-12-24.', 'The course is on December twenty-fourth two thousand twenty-six.'],
  ['fr', 'Le cours a lieu le 24/12/2026.', 'Le cours a lieu le vingt-quatre décembre deux mille vingt-six.'],
  ['fr', 'Début le 1.3.2027', 'Début le premier mars deux mille vingt-sept.'],
  ['it', 'Il corso è il 24.12.2026.', 'Il corso è il ventiquattro dicembre duemilaventisei.'],
  ['it', 'Dal 2026-03-01', 'Dal primo marzo duemilaventisei.'],
];

const PRICES: Case[] = [
  ['de', 'Der Kurs kostet 12,50 €.', 'Der Kurs kostet zwölf Euro fünfzig.'],
  ['de', 'Nur 1 € pro Tag', 'Nur ein Euro pro Tag.'],
  ['de', 'Eintritt CHF 20.–', 'Eintritt zwanzig Franken.'],
  ['de', 'Preis: 1.250,00 EUR', 'Preis: eintausendzweihundertfünfzig Euro.'],
  ['en', 'It costs €12.50.', 'It costs twelve euros fifty.'],
  ['en', 'Only $5', 'Only five dollars.'],
  ['fr', 'Le cours coûte 12,50 €.', 'Le cours coûte douze euros cinquante.'],
  ['fr', 'Seulement 1 €', 'Seulement un euro.'],
  ['it', 'Il corso costa 12,50 €.', 'Il corso costa dodici euro e cinquanta.'],
  ['it', 'Solo 2 EUR', 'Solo due euro.'],
];

const PHONES: Case[] = [
  [
    'de',
    'Rufen Sie +49 30 1234567 an.',
    'Rufen Sie plus vier neun, drei null, eins zwei drei vier fünf sechs sieben an.',
  ],
  ['de', 'Tel. 030/123456', 'Tel. null drei null, eins zwei drei vier fünf sechs.'],
  [
    'en',
    'Call +44 20 7946 0958.',
    'Call plus four four, two zero, seven nine four six, zero nine five eight.',
  ],
  ['fr', 'Appelez le 01 23 45 67 89.', 'Appelez le zéro un, deux trois, quatre cinq, six sept, huit neuf.'],
  [
    'it',
    'Chiami il +39 06 1234567.',
    'Chiami il più tre nove, zero sei, uno due tre quattro cinque sei sette.',
  ],
];

const CLEANUP: Case[] = [
  [
    'de',
    '**Öffnungszeiten** siehe [unsere Seite](https://example.com/zeiten).',
    'Öffnungszeiten siehe unsere Seite.',
  ],
  ['de', 'Mehr unter https://example.com/info oder www.example.com', 'Mehr unter oder.'],
  ['de', '# Kurse\n- Kurs A\n- Kurs B', 'Kurse. Kurs A. Kurs B.'],
  ['de', 'Wählen Sie [BUTTONS:Kurse] einen Kurs.', 'Wählen Sie einen Kurs.'],
  ['de', 'Gebucht! 🎉 [BOOK:0b0e7c1a-1111-4222-8333-444455556666]', 'Gebucht!'],
  ['de', 'Noch 3 Plätze frei, 50 % Rabatt', 'Noch drei Plätze frei, fünfzig Prozent Rabatt.'],
  ['en', 'We have *3* seats & a `parking` lot', 'We have three seats and a parking lot.'],
  ['fr', '> Note : 2,5 heures', 'Note: deux virgule cinq heures.'],
  ['it', '1. Primo punto\n2. Secondo punto', 'Primo punto. Secondo punto.'],
];

describe('text made for speech', () => {
  for (const [title, table] of [
    ['times', TIMES],
    ['dates', DATES],
    ['prices', PRICES],
    ['phone numbers', PHONES],
    ['markdown, links, tags and numbers', CLEANUP],
  ] as const) {
    it.each(table)(`${title} [%s] %j`, (lang, written, spoken) => {
      expect(speakable(written, lang)).toBe(spoken);
    });
  }

  it('reads language tags as Twilio sends them, German otherwise', () => {
    expect(['de-DE', 'en-US', 'fr-FR', 'it-IT', 'es-ES', '', null].map(voiceLanguageOf)).toEqual([
      'de',
      'en',
      'fr',
      'it',
      'de',
      'de',
      'de',
    ]);
  });
});

const BLOCK = {
  id: '8a3c2d7e-1111-4222-8333-444455556666',
  items: [
    { id: 'a', title: 'Kurs A' },
    { id: 'b', title: 'Kurs B' },
    { id: 'c', title: 'Kurs C' },
    { id: 'd', title: 'Kurs D' },
  ],
};

describe('spoken choices', () => {
  it.each([
    ['de', 'Sagen Sie Kurs A, Kurs B oder Kurs C – oder drücken Sie 1, 2 oder 3.'],
    ['en', 'Say Kurs A, Kurs B or Kurs C – or press 1, 2 or 3.'],
    ['fr', 'Dites Kurs A, Kurs B ou Kurs C – ou appuyez sur 1, 2 ou 3.'],
    ['it', 'Dica Kurs A, Kurs B o Kurs C – oppure prema 1, 2 o 3.'],
  ] as const)('offers at most three choices [%s]', (lang, spoken) => {
    expect(spokenChoices(BLOCK, lang)).toBe(spoken);
  });

  it('says two choices without a list comma', () => {
    expect(spokenChoices({ id: BLOCK.id, items: BLOCK.items.slice(0, 2) }, 'de')).toBe(
      'Sagen Sie Kurs A oder Kurs B – oder drücken Sie 1 oder 2.',
    );
  });

  it.each([
    [{ digits: '2' }, 'b'],
    [{ digits: '3' }, 'c'],
    [{ digits: '4' }, null],
    [{ digits: '9' }, null],
    [{ speech: 'Kurs B bitte.' }, 'b'],
    [{ speech: 'Ich nehme kurs c am Abend' }, 'c'],
    [{ speech: 'Kurs D' }, null],
    [{ speech: 'den ersten' }, 'a'],
    [{ speech: 'zwei' }, 'b'],
    [{ speech: 'the third one' }, 'c'],
    [{ speech: 'deuxième' }, 'b'],
    [{ speech: 'il primo' }, 'a'],
    [{ speech: 'Was kostet das alles zusammen?' }, null],
    [{ speech: '' }, null],
  ])('understands %j as item %s', (answer, item) => {
    const chosen = chosenItem(BLOCK, answer);
    expect(chosen?.itemId ?? null).toBe(item);
    if (chosen) expect(chosen.blockId).toBe(BLOCK.id);
  });

  it('prefers the longest title said', () => {
    const block = {
      id: BLOCK.id,
      items: [
        { id: 'x', title: 'Yoga' },
        { id: 'y', title: 'Yoga am Abend' },
      ],
    };
    expect(chosenItem(block, { speech: 'Yoga am Abend bitte' })?.itemId).toBe('y');
    expect(chosenItem(block, { speech: 'Yoga bitte' })?.itemId).toBe('x');
  });
});

describe('confirming a read-back', () => {
  it.each([
    ['de', { speech: 'Ja.' }, 'yes'],
    ['de', { speech: 'Ja, bitte!' }, 'yes'],
    ['de', { digits: '1' }, 'yes'],
    ['de', { speech: 'Nein, doch nicht.' }, 'no'],
    ['de', { digits: '2' }, 'no'],
    ['de', { speech: 'Wie bitte?' }, null],
    ['en', { speech: 'Yes please' }, 'yes'],
    ['en', { speech: 'No' }, 'no'],
    ['fr', { speech: 'Oui.' }, 'yes'],
    ['fr', { speech: 'Non merci' }, 'no'],
    ['it', { speech: 'Sì, grazie' }, 'yes'],
    ['it', { speech: 'No' }, 'no'],
  ] as const)('[%s] %j → %s', (lang, answer, expected) => {
    expect(confirmation(lang, answer)).toBe(expected);
  });
});
