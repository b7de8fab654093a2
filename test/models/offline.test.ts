import { describe, expect, it } from 'vitest';
import { alternateRoles } from '../../src/modules/models/anthropic.js';
import { detectLanguage } from '../../src/shared/language.js';
import {
  OFFLINE_MODEL_NAME,
  coversTerm,
  extractAnswer,
  offlineAnswer,
  offlineProvider,
  questionKeyTerms,
  toPlainText,
} from '../../src/modules/models/offline.js';
import { questionType, splitSentences } from '../../src/modules/models/sentences.js';
import { collectStream, type ModelRequest } from '../../src/modules/models/provider.js';
import { chooseModel } from '../../src/modules/models/select.js';
import { countTokens } from '../../src/modules/models/tokens.js';

describe('detectLanguage', () => {
  it.each([
    ['Wie sind die Öffnungszeiten?', 'de'],
    ['Öffnungszeiten?', 'de'],
    ['Was kostet ein Termin bei Ihnen?', 'de'],
    ['What time do you open on Saturday?', 'en'],
    ['Can I book an appointment?', 'en'],
    ["Quels sont vos horaires d'ouverture ?", 'fr'],
    ['Bonjour, je voudrais un rendez-vous pour mardi', 'fr'],
    ['Quali sono gli orari di apertura?', 'it'],
    ['Buongiorno, vorrei prenotare un appuntamento per domani', 'it'],
    ['12345', 'de'],
    ['', 'de'],
  ])('%s → %s', (text, language) => {
    expect(detectLanguage(text)).toBe(language);
  });
});

describe('toPlainText', () => {
  it('removes Markdown so the reply is plain running text', () => {
    expect(toPlainText('## Öffnungszeiten\n\n- **Mo–Fr** 9–18 Uhr\n- Sa [nach Termin](https://x.test)')).toBe(
      'Öffnungszeiten. Mo–Fr 9–18 Uhr Sa nach Termin',
    );
  });
});

describe('extractAnswer', () => {
  const content =
    'Wir sind ein Friseursalon in Köln. Unsere Öffnungszeiten sind Montag bis Freitag von 9 bis 18 Uhr. ' +
    'Parkplätze gibt es im Hof. Samstags öffnen wir nach Vereinbarung.';
  it('keeps the sentences that share words with the question, in their order', () => {
    expect(extractAnswer(content, 'Wann sind eure Öffnungszeiten?')).toBe(
      'Unsere Öffnungszeiten sind Montag bis Freitag von 9 bis 18 Uhr.',
    );
  });
  it('falls back to the opening sentences and respects the length budget', () => {
    const answer = extractAnswer(content, 'xyz', 60);
    expect(answer.startsWith('Wir sind ein Friseursalon in Köln.')).toBe(true);
    expect(answer.length).toBeLessThanOrEqual(60);
  });
});

describe('splitSentences', () => {
  it('keeps numbers, abbreviations, initials and German ordinals inside their sentence', () => {
    expect(
      splitSentences(
        'The company moved to St. Johns in 2005. E.I. du Pont supplied 415.000 frames, i.e. 43.3% of all. Mr. Smith agreed.',
        'en',
      ),
    ).toEqual([
      'The company moved to St. Johns in 2005.',
      'E.I. du Pont supplied 415.000 frames, i.e. 43.3% of all.',
      'Mr. Smith agreed.',
    ]);
    expect(
      splitSentences(
        'Dr. Meier kommt am 3. Mai um 9 Uhr. Das kostet ca. 5 Euro, z.B. bar. Ab der 13. Woche geht es los.',
        'de',
      ),
    ).toEqual([
      'Dr. Meier kommt am 3. Mai um 9 Uhr.',
      'Das kostet ca. 5 Euro, z.B. bar.',
      'Ab der 13. Woche geht es los.',
    ]);
  });
});

describe('questionType', () => {
  it.each([
    ['Wer leitet den Kurs?', 'person'],
    ['Who founded the company?', 'person'],
    ['Wann öffnet das Amt?', 'time'],
    ['What year did Tesla die?', 'time'],
    ['Wie viele Plätze gibt es?', 'number'],
    ['How much does the chain cost?', 'price'],
    ['Was kostet die Stunde?', 'price'],
    ['Wie viel kostet der Rückbildungskurs?', 'price'],
    ['Wie hoch ist die Vorverkaufsgebühr?', 'price'],
    ['What is the fee for a late return?', 'price'],
    ['Combien coûte une nuit ?', 'price'],
    ['Wie hoch ist der Turm?', 'number'],
    ['How much storage is included?', 'number'],
    ['Wo kann ich parken?', 'place'],
    ['Gibt es Parkplätze?', 'other'],
  ])('%s → %s', (question, type) => {
    expect(questionType(question)).toBe(type);
  });
});

describe('extractAnswer by question type', () => {
  const content =
    'Der Kurs für Schwangerschaftsyoga findet donnerstags statt. Geleitet wird er von der Hebamme Svenja Kraus. ' +
    'Der Kurs kostet 120,00 € für acht Termine. Bisher haben 415.000 Menschen teilgenommen.';
  it('answers who with the sentence holding a name, when with a time, how much with a number', () => {
    expect(extractAnswer(content, 'Wer leitet den Kurs für Schwangerschaftsyoga?')).toContain('Svenja Kraus');
    expect(extractAnswer(content, 'Was kostet der Kurs?')).toContain('120,00 €');
    expect(extractAnswer(content, 'Wie viele Menschen haben teilgenommen?')).toContain('415.000 Menschen');
  });
  it('answers what something costs with a sentence naming an amount of money, not any number', () => {
    const rooms =
      'Das Hotel am See hat 38 Zimmer mit Seeblick. Ein Zimmer mit Balkon kostet ab 149,00 € pro Nacht.';
    expect(extractAnswer(rooms, 'Was kostet ein Zimmer mit Seeblick?', 80, 'de')).toContain('149,00 €');
    expect(extractAnswer(rooms, 'Wie viele Zimmer gibt es mit Seeblick?', 80, 'de')).toContain('38 Zimmer');
  });
  it("weighs the words of the entry's title less: they name what every sentence is about", () => {
    const tariffs =
      'Taktwerk Kasse gibt es in drei Tarifen. Start kostet 29,00 € pro Monat für eine Kasse. ' +
      'Pro kostet 59,00 € monatlich und umfasst unbegrenzte Belege.';
    const question = 'Welche Leistung hat der Taktwerk Tarif Pro?';
    expect(extractAnswer(tariffs, question)).not.toContain('59,00 €');
    expect(extractAnswer(tariffs, question, 600, 'de', 'Taktwerk Kasse – Tarife')).toContain(
      'Pro kostet 59,00 € monatlich',
    );
  });
  it('keeps sentences whole', () => {
    const answer = extractAnswer(
      'Founded by E.I. du Pont in 1802. Today 43.3% are exported.',
      'Who founded it?',
    );
    expect(answer).toBe('Founded by E.I. du Pont in 1802.');
  });
});

const grounding = (
  userMessage: string,
  knowledge: ModelRequest['grounding']['knowledge'],
  formalAddress = true,
) => ({
  userMessage,
  knowledge,
  formalAddress,
});

describe('offlineAnswer', () => {
  const hits = [
    { title: 'Parken', content: 'Parkplätze gibt es im Hof.', score: 0.5 },
    { title: 'Öffnungszeiten', content: 'Geöffnet Montag bis Freitag von 9 bis 18 Uhr.', score: 0.9 },
  ];
  it('names the entry whose sentence answers best among hits scoring close to the best', () => {
    const close = [
      { title: 'Kurse', content: 'Yoga gibt es am Montag.', score: 0.8 },
      { title: 'Preise', content: 'Der Yoga-Kurs kostet 15 Euro pro Stunde.', score: 0.78 },
    ];
    expect(offlineAnswer(grounding('Was kostet der Yoga-Kurs?', close))).toBe(
      'Laut unseren Informationen zu „Preise“: Der Yoga-Kurs kostet 15 Euro pro Stunde.',
    );
  });
  it('answers from the best hit with a lead-in in the user’s language', () => {
    expect(offlineAnswer(grounding('Wann habt ihr geöffnet?', hits))).toBe(
      'Laut unseren Informationen zu „Öffnungszeiten“: Geöffnet Montag bis Freitag von 9 bis 18 Uhr.',
    );
    expect(offlineAnswer(grounding('When are you open?', hits))).toMatch(
      /^According to our information on "Öffnungszeiten": /,
    );
  });
  it.each([
    [
      'Wie ist das Wetter morgen?',
      true,
      /^Dazu liegen mir leider keine gesicherten Informationen vor\..*Ihre Anfrage/,
    ],
    ['Wie ist das Wetter morgen?', false, /deine Anfrage/],
    ['What is the weather tomorrow?', true, /^I'm sorry/],
    ['Quel temps fera-t-il demain ?', true, /^Je suis désolé/],
    ['Che tempo farà domani?', true, /^Mi dispiace/],
  ])('hands over politely without a hit: %s (formal %s)', (message, formal, pattern) => {
    expect(offlineAnswer(grounding(message, [], formal))).toMatch(pattern);
  });
});

describe('sentence coverage of key terms', () => {
  it.each([
    ['Was kostet das Messer AS-206?', 'de', ['as206']],
    ['Was bedeutet der Fehler 4021?', 'de', ['4021']],
    ['Passt das Messer für ein Mähwerk von 2005?', 'de', ['2005']],
    ['Hat das Hotel Seeblick eine Sauna?', 'de', []],
    ['What year did Tesla die?', 'en', ['tesla']],
    // "Saint" begins names and is often written "St.": no key term.
    ["Who is the nurse at Saint Edmund's on Mondays?", 'en', ['edmund']],
  ] as const)('key terms of %s', (question, language, terms) => {
    expect(questionKeyTerms(question, language)).toEqual(terms);
  });

  it.each([
    // codes and numbers in any of their search forms
    ['Das Ersatzmesser AS-206 kostet 24,90 €.', 'as206', true],
    ['Das Ersatzmesser AS 206 kostet 24,90 €.', '206', true],
    ['Das Ersatzmesser AS-207 kostet 24,90 €.', 'as206', false],
    ['Fehler E-4021: Der Drucker ist nicht verbunden.', '4021', true],
    ['Fehler E-4022: Das Papier ist leer.', '4021', false],
    ['Ab einem Bestellwert von 1.299,00 € liefern wir frei.', '129900', true],
    ['Ab einem Bestellwert von 1.299,00 € liefern wir frei.', '1299', true],
    ['Mähwerke ab Baujahr 2012.', '2005', false],
    // German forms and compounds
    ['Der Zahnnotdienst ist am Wochenende erreichbar.', 'notdienst', true],
    ['Der Stundensatz der Werkstatt beträgt 68 €.', 'werkstattstunde', true],
    ['Die Öffnungszeit am Samstag ist kürzer.', 'öffnungszeiten', true],
    ['Das Hotel hat eine finnische Sauna.', 'hubschrauberlandeplatz', false],
    // names
    ['Tesla died in New York in 1943.', 'tesla', true],
    ['The Black Death reached England in 1348.', 'tesla', false],
    ["Nurse Jane Holt works at Saint Edmund's.", 'edmund', true],
  ] as const)('%s covers %s: %s', (sentence, term, expected) => {
    expect(coversTerm(sentence, term)).toBe(expected);
  });

  it('hands over, in the question’s language, when no sentence covers the key terms', () => {
    const hits = [
      {
        title: 'Anmeldung und Probetraining',
        content: 'Bitte bringen Sie bequeme Kleidung und ein Handtuch mit.',
        score: 0.69,
      },
    ];
    expect(offlineAnswer(grounding('What year did Tesla die?', hits))).toMatch(/^I'm sorry/);
    const parts = [{ title: 'Ersatzmesser', content: 'Das Ersatzmesser AS-207 kostet 24,90 €.', score: 0.9 }];
    expect(offlineAnswer(grounding('Was kostet das Ersatzmesser AS-206?', parts))).toMatch(
      /^Dazu liegen mir leider keine gesicherten Informationen vor/,
    );
    expect(offlineAnswer(grounding('Was kostet das Ersatzmesser AS-207?', parts))).toBe(
      'Laut unseren Informationen zu „Ersatzmesser“: Das Ersatzmesser AS-207 kostet 24,90 €.',
    );
  });

  it('answers from the sentence that covers the key terms, not from the best-scoring other one', () => {
    const hits = [
      {
        title: 'Fehlercodes',
        content:
          'Fehler E-4022 bedeutet, dass das Papier leer ist. Fehler E-4021 bedeutet, dass der Drucker nicht verbunden ist.',
        score: 0.9,
      },
    ];
    expect(offlineAnswer(grounding('Was bedeutet Fehler E-4021?', hits))).toBe(
      'Laut unseren Informationen zu „Fehlercodes“: Fehler E-4021 bedeutet, dass der Drucker nicht verbunden ist.',
    );
  });
});

describe('offlineProvider', () => {
  const request: ModelRequest = {
    system: 'System prompt',
    messages: [{ role: 'user', content: 'Wann habt ihr geöffnet?' }],
    grounding: grounding('Wann habt ihr geöffnet?', [
      { title: 'Zeiten', content: 'Täglich 8 bis 20 Uhr geöffnet.', score: 0.8 },
    ]),
  };
  it('is deterministic, names itself and counts tokens with the tokenizer', async () => {
    const provider = offlineProvider();
    const first = await provider.generate(request);
    expect(await provider.generate(request)).toEqual(first);
    expect(first.model).toBe(OFFLINE_MODEL_NAME);
    expect(first.completionTokens).toBe(countTokens(first.text));
    expect(first.promptTokens).toBeGreaterThan(countTokens('System prompt'));
  });
  it('streams the same text in pieces, then one final event', async () => {
    const provider = offlineProvider();
    const deltas: string[] = [];
    let done = 0;
    for await (const event of provider.stream(request)) {
      if (event.type === 'delta') deltas.push(event.text);
      else done += 1;
    }
    expect(deltas.length).toBeGreaterThan(3);
    expect(done).toBe(1);
    expect(deltas.join('')).toBe((await collectStream(provider.stream(request))).text);
  });
});

describe('chooseModel', () => {
  const deployment = { provider: 'openai' as const, model: 'gpt-4o-mini' };
  it.each([
    [null, { provider: 'openai', model: 'gpt-4o-mini' }],
    ['', { provider: 'openai', model: 'gpt-4o-mini' }],
    ['  ', { provider: 'openai', model: 'gpt-4o-mini' }],
    ['offline', { provider: 'offline', model: undefined }],
    ['openai:gpt-4.1', { provider: 'openai', model: 'gpt-4.1' }],
    ['anthropic:claude-sonnet-4-5', { provider: 'anthropic', model: 'claude-sonnet-4-5' }],
    ['anthropic', { provider: 'anthropic', model: undefined }],
    ['gpt-4.1-mini', { provider: 'openai', model: 'gpt-4.1-mini' }],
    ['llama3.1:8b', { provider: 'openai', model: 'llama3.1:8b' }],
    ['openai:llama3.1:8b', { provider: 'openai', model: 'llama3.1:8b' }],
  ])('%j → %j', (override, expected) => {
    expect(chooseModel(override, deployment)).toEqual(expected);
  });
});

describe('alternateRoles', () => {
  it('joins neighbours of the same role and drops a leading assistant turn', () => {
    expect(
      alternateRoles([
        { role: 'assistant', content: 'Willkommen' },
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
        { role: 'assistant', content: 'c' },
        { role: 'assistant', content: 'd' },
        { role: 'user', content: 'e' },
      ]),
    ).toEqual([
      { role: 'user', content: 'a\n\nb' },
      { role: 'assistant', content: 'c\n\nd' },
      { role: 'user', content: 'e' },
    ]);
  });
});
