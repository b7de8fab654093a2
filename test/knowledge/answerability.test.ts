import { describe, expect, it } from 'vitest';
import {
  answerCandidates,
  decideAnswerability,
  keyTerms,
  sharedTitleWords,
  titleOnly,
  topicWords,
} from '../../src/modules/knowledge/answerability.js';
import { coversTerm } from '../../src/modules/models/offline.js';
import {
  answerProbability,
  FEATURE_NAMES,
  type AnswerabilityModel,
} from '../../src/modules/knowledge/answerability-model.js';
import { ANSWERABILITY_MODEL } from '../../src/modules/knowledge/answerability-weights.js';
import {
  calibratedScore,
  confidence,
  questionTopicWeights,
  topicWeight,
  type QueryWord,
} from '../../src/modules/knowledge/confidence.js';
import type { KnowledgeHit } from '../../src/modules/knowledge/search.js';
import { queryWords } from '../../src/shared/text.js';
import { detectLanguage, isFrequentWord } from '../../src/shared/language.js';

/** The query's words as the search sees them; every word known to the corpus unless listed. */
function wordsOf(question: string, unknown: string[] = []): QueryWord[] {
  return queryWords(question).map((word) => ({ word, idf: unknown.includes(word) ? null : 3 }));
}

function hit(
  covered: string[],
  score: number,
  cosine: number | null = null,
  n = 1,
  title = `Eintrag ${n}`,
): KnowledgeHit {
  return {
    entryId: `00000000-0000-4000-8000-00000000000${n}`,
    chunkId: `00000000-0000-4000-9000-00000000000${n}`,
    title,
    content: 'Inhalt',
    score,
    sourceUrl: null,
    botId: null,
    evidence: { score, coverage: score, covered, missing: [], words: [], cosine },
  };
}

describe('key terms of a question', () => {
  it.each([
    ['Was kostet das Messer AS-206?', ['as206']],
    ['Was bedeutet der Fehler 4021?', ['4021']],
    ['Welche Messer brauche ich für ein Mähwerk von 2005?', ['2005']],
    ['Was kostet der Versand nach 1.299,00 € Bestellwert?', ['129900']],
    // German capitalises every noun: capitals mark no name there.
    ['Wann wurde das Plastom entdeckt?', []],
    ['Hat das Hotel Seeblick eine Sauna?', []],
    ['What year did Tesla die?', ['tesla']],
    ['Who painted the Mona Lisa?', ['mona', 'lisa']],
    // "Saint" begins names and is often written "St.": no key term.
    ["Who is the nurse at Saint Edmund's?", ['edmund']],
    // Weekdays and months are no names; the first word of a sentence is no name.
    ['When is the hardware store open on Sundays?', []],
    ['Tesla cars: do you rent them?', []],
    ['How much does part KX-1180/B cost in March?', ['kx1180b']],
  ])('%s → %j', (question, expected) => {
    expect(keyTerms(question, detectLanguage(question), wordsOf(question)).sort()).toEqual(
      [...expected].sort(),
    );
  });
});

describe('answerability decision', () => {
  const MIN = 0.4;
  it.each([
    // question, hits (covered words, score), expected reason, missing key terms
    ['Was kostet das Messer AS-206?', [hit(['messer', 'as206'], 0.9)], 'answer', []],
    ['Was kostet das Messer AS-206?', [hit(['messer'], 0.6)], 'missing_key_terms', ['as206']],
    ['Was bedeutet der Fehler 4021?', [hit(['bedeutet', 'fehler'], 0.7)], 'missing_key_terms', ['4021']],
    ['What year did Tesla die?', [hit(['year', 'die'], 0.5)], 'missing_key_terms', ['tesla']],
    ['What year did Tesla die?', [hit(['year'], 0.2)], 'low_score', []],
    ['Darf ich meinen Hund mitbringen?', [], 'no_hits', []],
    ['Wie lange dauert die Überfahrt?', [hit(['dauert', 'überfahrt'], 0.95)], 'answer', []],
  ] as const)('%s (case %#)', (question, hits, reason, missing) => {
    const decision = decideAnswerability({
      question,
      language: detectLanguage(question),
      hits: [...hits],
      words: wordsOf(question),
      minScore: MIN,
    });
    expect(decision.reason).toBe(reason);
    expect(decision.answer).toBe(reason === 'answer');
    expect(decision.missingTerms).toEqual(missing);
    expect(decision.hits.length > 0).toBe(reason === 'answer');
  });

  it('keeps only the hits that cover the key terms, in their order', () => {
    const question = 'Welcher Zinken passt für den KX-1180?';
    const decision = decideAnswerability({
      question,
      language: 'de',
      hits: [
        hit(['zinken'], 0.8, null, 1),
        hit(['zinken', 'kx1180'], 0.7, null, 2),
        hit(['kx1180'], 0.3, null, 3),
      ],
      words: wordsOf(question),
      minScore: MIN,
      mode: 'rules',
    });
    expect(decision.answer).toBe(true);
    expect(decision.hits.map((h) => h.title)).toEqual(['Eintrag 2']);
  });

  it('with vectors, a hit far from the question in meaning does not answer', () => {
    const question = 'Darf ich meinen Hund mitbringen?';
    const base = { question, language: 'de' as const, words: wordsOf(question), minScore: MIN };
    expect(decideAnswerability({ ...base, hits: [hit(['mitbringen'], 0.6, 0.1)] }).reason).toBe(
      'low_similarity',
    );
    expect(decideAnswerability({ ...base, hits: [hit(['mitbringen'], 0.6, 0.8)] }).reason).toBe('answer');
  });
});

/** The query's words without the frequent short words (the search drops its language's stop words). */
function searched(question: string): string[] {
  return queryWords(question).filter((word) => !isFrequentWord(word));
}

describe('topic words of a question', () => {
  it.each([
    // German: nouns (capitalised) are topic words, the first word is capitalised as the start.
    ['Hat das Hotel Seeblick einen Hubschrauberlandeplatz?', ['hotel', 'seeblick', 'hubschrauberlandeplatz']],
    ['Bietet der Salon Haarwerk Tattoos an?', ['salon', 'haarwerk', 'tattoos']],
    ['Wie viele Mitarbeiter hat Umzüge Hellweg?', ['mitarbeiter', 'umzüge', 'hellweg']],
    // English: every word that is no question word.
    ['Is there a sauna at The Foundry Cowork?', ['sauna', 'foundry', 'cowork']],
    ['How much does the AS-206 blade cost?', ['blade']],
  ])('%s → %j', (question, expected) => {
    const language = detectLanguage(question);
    const words = searched(question).map((word, i, all) => ({
      word,
      idf: 3,
      topic: questionTopicWeights(question, language, all)[i]!,
    }));
    expect(topicWords(question, language, words).sort()).toEqual([...expected].sort());
  });
});

describe('a hit that shares only its title with the question', () => {
  /** Words with their German/English topic weights, as the search gives them. */
  function weighted(question: string): QueryWord[] {
    const language = detectLanguage(question);
    const words = searched(question);
    const topics = questionTopicWeights(question, language, words);
    return words.map((word, i) => ({ word, idf: 3, topic: topics[i]! }));
  }
  it.each([
    // question, title, covered words, lacking topic words ([] = the hit answers more than its title)
    [
      'Hat das Hotel Seeblick einen Hubschrauberlandeplatz?',
      'Hotel Seeblick – Restaurant',
      ['hotel', 'seeblick'],
      ['hubschrauberlandeplatz'],
    ],
    [
      'Wie heißt der Hund der Bäckerei Kornblume?',
      'Bäckerei Kornblume – Brote',
      ['bäckerei', 'kornblume'],
      ['hund'],
    ],
    [
      'Is there a sauna at The Foundry Cowork?',
      'The Foundry Cowork – Events',
      ['foundry', 'cowork'],
      ['sauna'],
    ],
    // The content holds what is asked: a topic word, a German lower-case word, a code.
    ['Hat das Hotel Seeblick eine Sauna?', 'Hotel Seeblick – Wellness', ['hotel', 'seeblick', 'sauna'], []],
    [
      'Wie lange hat die Zahnarztpraxis mittwochs geöffnet?',
      'Zahnarztpraxis – Team',
      ['zahnarztpraxis', 'mittwochs'],
      [],
    ],
    ['Was kostet das Messer AS-206 bei Brandl?', 'Brandl Ersatzteile', ['brandl', 'as206'], []],
    // German compounds: the title's "Öffnungszeiten" holds the question's "Öffnungszeit".
    [
      'Wie ist die Öffnungszeit der Bibliothek?',
      'Bibliothek – Öffnungszeiten',
      ['bibliothek', 'öffnungszeit'],
      [],
    ],
    // Every topic word in the title: nothing more to cover.
    ['Wann hat das Bürgerbüro geöffnet?', 'Bürgerbüro – Öffnungszeiten', ['bürgerbüro'], []],
  ])('%s in „%s“', (question, title, covered, lacking) => {
    const words = weighted(question);
    const topics = topicWords(question, detectLanguage(question), words);
    expect(titleOnly(hit(covered, 0.8, null, 1, title), topics, words)).toEqual(lacking);
  });

  it('turns the decision to a hand-over naming the lacking words', () => {
    const question = 'Is there a sauna at The Foundry Cowork?';
    const decision = decideAnswerability({
      question,
      language: 'en',
      hits: [hit(['foundry', 'cowork'], 0.7, null, 1, 'The Foundry Cowork – Events and phone booths')],
      words: weighted(question),
      minScore: 0.4,
      mode: 'rules',
    });
    expect(decision).toMatchObject({ answer: false, reason: 'missing_key_terms', missingTerms: ['sauna'] });
  });

  it("counts a title word of the hit alone that its text repeats as the hit's own subject", () => {
    const question = 'Was kostet die Prüfung eines Akkus?';
    const words = weighted(question);
    const topics = topicWords(question, 'de', words);
    const akkus: KnowledgeHit = {
      ...hit(['kostet', 'akkus'], 0.5, null, 1, 'Radwerk Kessler – E-Bike-Akkus'),
      content: 'Akkus für E-Bikes prüfen wir mit einem Diagnosegerät; der Akkutest kostet 19,00 €.',
    };
    expect(titleOnly(akkus, topics, words, { shared: new Set(), ownSubject: true })).toEqual([]);
    // Another hit's title holds it too: it names what all of them are about.
    expect(titleOnly(akkus, topics, words, { shared: new Set(['akkus']), ownSubject: true })).toEqual([
      'prüfung',
    ]);
    // Without ownSubject (a topic word no entry holds) the title rule stays as it was.
    expect(titleOnly(akkus, topics, words)).toEqual(['prüfung']);
    expect(
      sharedTitleWords(
        [akkus, hit([], 0.4, null, 2, 'Radwerk Kessler – Akkus lagern')],
        ['akkus', 'kessler'],
      ),
    ).toEqual(new Set(['akkus', 'kessler']));
  });

  it('counts a compound searched as its parts only when the hit holds all of them', () => {
    const question = 'Gibt es einen Schulbus zum Gymnasium?';
    const words: QueryWord[] = [
      { word: 'schul', idf: 2, topic: 1, source: 'schulbus' },
      { word: 'bus', idf: 3, topic: 1, source: 'schulbus' },
      { word: 'gymnasium', idf: 2, topic: 1 },
    ];
    const ferien = hit(['schul', 'gymnasium'], 0.6, null, 1, 'Gymnasium am Schlossberg – Ferien');
    expect(titleOnly(ferien, ['schul', 'bus', 'gymnasium'], words)).toEqual(['bus']);
    const bus = hit(['schul', 'bus', 'gymnasium'], 0.8, null, 2, 'Gymnasium am Schlossberg – Schulweg');
    expect(titleOnly(bus, ['schul', 'bus', 'gymnasium'], words)).toEqual([]);
    expect(
      decideAnswerability({ question, language: 'de', hits: [ferien], words, minScore: 0.4, mode: 'rules' })
        .answer,
    ).toBe(false);
  });

  it('lets a hit close in meaning answer (with vectors), however few words it shares', () => {
    const question = 'Ist Parken im Hotel Seeblick erlaubt?';
    const decide = (cosine: number | null) =>
      decideAnswerability({
        question,
        language: 'de',
        hits: [hit(['hotel', 'seeblick'], 0.6, cosine, 1, 'Hotel Seeblick – Anreise')],
        words: weighted(question),
        minScore: 0.4,
        mode: 'rules',
      });
    expect(decide(null).answer).toBe(false);
    expect(decide(0.45).answer).toBe(false);
    expect(decide(0.8).answer).toBe(true);
  });
});

describe('sentence coverage of a key term (offline answerer)', () => {
  it.each([
    ['Das Ersatzmesser AS-206 kostet 24,90 €.', 'as206', true],
    ['Das Ersatzmesser AS 206 kostet 24,90 €.', 'as206', false],
    ['Teil 206 passt für alle Mähwerke.', '206', true],
    ['Der Preis beträgt 1.299,00 €.', '129900', true],
    ['Der Preis beträgt 1.299,00 €.', '1299', true],
    ['Fehler E-4021: Verbindung unterbrochen.', 'e4021', true],
    ['Fehler E-4021: Verbindung unterbrochen.', '4022', false],
    // German compounds, inflections and parts.
    ['Der Zahnnotdienst ist am Wochenende erreichbar.', 'notdienst', true],
    ['Der Stundensatz der Werkstatt beträgt 72 €.', 'werkstattstunde', true],
    ['Die Öffnungszeiten stehen am Eingang.', 'öffnungszeit', true],
    ['Bitte bringen Sie bequeme Kleidung mit.', 'hund', false],
    // Written apart or hyphenated.
    ['All rooms have free Wi-Fi.', 'wifi', true],
    ['A day pass costs $15.00.', 'daypass', true],
    ['Every e-bike comes with a tune-up.', 'ebike', true],
    // Only neighbouring words join.
    ['The day is long; pass the salt.', 'daypass', false],
    ['Free parking for every guest.', 'wifi', false],
    // Names.
    ['Nurse Amy Clarke is at St. Edmund’s on Mondays.', 'edmund', true],
    ['The Black Death reached the town in 1349.', 'tesla', false],
  ])('%s covers %s: %s', (sentence, term, expected) => {
    expect(coversTerm(sentence, term)).toBe(expected);
  });
});

describe('confidence score', () => {
  it('is monotone in coverage and maps 0 and 1 to themselves', () => {
    expect(calibratedScore(0)).toBe(0);
    expect(calibratedScore(1)).toBe(1);
    for (let c = 0; c < 1; c += 0.05)
      expect(calibratedScore(c + 0.05)).toBeGreaterThanOrEqual(calibratedScore(c));
  });

  it.each([
    ['wann', 1],
    ['kostet', 0.2],
    ['much', 0.2],
    ['2024', 0.3],
    ['as206', 1],
    ['tesla', 1],
    // What the apostrophe leaves of "won't", "isn't", "didn't": no topic.
    ['won', 0.2],
    ['isn', 0.2],
    ['didn', 0.2],
    ['whose', 0.2],
  ])('topic weight of %s is %d', (word, weight) => {
    expect(topicWeight(word)).toBe(weight);
  });

  it('a word the knowledge base lacks pulls the score down; question words do not fill it up', () => {
    // "What year did Tesla die?": the chunk holds "year" and "die", not "tesla" (unknown).
    const words: QueryWord[] = [
      { word: 'year', idf: 2 },
      { word: 'tesla', idf: null },
      { word: 'die', idf: 2 },
    ];
    const unrelated = confidence(words, [2, 0, 2], 1000, null);
    expect(unrelated.score).toBeLessThan(0.4);
    expect(unrelated.missing).toEqual(['tesla']);
    // The same chunk holding the name too answers with full confidence.
    const known: QueryWord[] = words.map((w) => ({ ...w, idf: w.idf ?? 4 }));
    expect(confidence(known, [2, 4, 2], 100, null).score).toBe(1);
  });

  it('a rare word the chunk lacks weighs more than a common one', () => {
    const words: QueryWord[] = [
      { word: 'hotel', idf: 1 },
      { word: 'sauna', idf: 4 },
    ];
    const lacksRare = confidence(words, [1, 0], 100, null).score;
    const lacksCommon = confidence(words, [0, 4], 100, null).score;
    expect(lacksRare).toBeLessThan(0.4);
    expect(lacksCommon).toBeGreaterThan(0.5);
  });
});

describe('the learned answerability model', () => {
  const n = FEATURE_NAMES.length;
  const MIN = 0.4;
  function weighted(question: string): QueryWord[] {
    const language = detectLanguage(question);
    const words = searched(question);
    const topics = questionTopicWeights(question, language, words);
    return words.map((word, i) => ({ word, idf: 3, topic: topics[i]! }));
  }
  /** A model that answers from every hit (or none), whatever its features. */
  const constant = (bias: number): AnswerabilityModel => ({
    version: 'test',
    features: FEATURE_NAMES,
    mean: new Array<number>(n).fill(0),
    scale: new Array<number>(n).fill(1),
    weights: new Array<number>(n).fill(0),
    bias,
    threshold: 0.5,
  });

  it('is committed with a version, one weight per feature and a threshold between 0 and 1', () => {
    expect(ANSWERABILITY_MODEL.version).toMatch(/^answerability-lr-\d+$/);
    expect(ANSWERABILITY_MODEL.features).toEqual([...FEATURE_NAMES]);
    for (const values of [ANSWERABILITY_MODEL.weights, ANSWERABILITY_MODEL.mean, ANSWERABILITY_MODEL.scale])
      expect(values).toHaveLength(n);
    expect(ANSWERABILITY_MODEL.threshold).toBeGreaterThan(0);
    expect(ANSWERABILITY_MODEL.threshold).toBeLessThan(1);
  });

  it('decides by its probability, but never from a hit below the minimum score or lacking a key term', () => {
    const question = 'Welcher Zinken passt für den KX-1180?';
    const input = {
      question,
      language: 'de' as const,
      hits: [
        hit(['zinken'], 0.8, null, 1),
        hit(['zinken', 'kx1180'], 0.7, null, 2),
        hit(['kx1180'], 0.3, null, 3),
      ],
      words: wordsOf(question),
      minScore: MIN,
    };
    const yes = decideAnswerability({ ...input, model: constant(5) });
    expect(yes.answer).toBe(true);
    expect(yes.hits.map((h) => h.title)).toEqual(['Eintrag 2']);
    expect(decideAnswerability({ ...input, model: constant(-5) })).toMatchObject({ answer: false, hits: [] });
    expect(answerCandidates(input).map((c) => c.hit.title)).toEqual(['Eintrag 2']);
  });

  it('reads the features the search computed', () => {
    const question = 'Is there a sauna at The Foundry Cowork?';
    const words = weighted(question);
    const top = {
      ...hit(['foundry', 'cowork'], 0.7, null, 1, 'The Foundry Cowork – Events and phone booths'),
      content: 'A meetup takes place every Thursday. Phone booths can be booked for 30 minutes.',
    };
    const second = hit(['foundry', 'cowork', 'sauna'], 0.5, null, 2, 'The Foundry Cowork – Wellness');
    const [first, other] = answerCandidates({
      question,
      language: 'en',
      hits: [top, second],
      words,
      minScore: 0.4,
    });
    const feature = (c: typeof first, name: (typeof FEATURE_NAMES)[number]) =>
      c!.features[FEATURE_NAMES.indexOf(name)];
    expect(feature(first, 'title_only')).toBe(1);
    expect(feature(other, 'title_only')).toBe(0);
    expect(feature(first, 'margin')).toBeCloseTo(0.2);
    expect(feature(other, 'margin')).toBeCloseTo(-0.2);
    expect(feature(first, 'rank')).toBe(0);
    expect(feature(other, 'rank')).toBe(1);
    expect(feature(first, 'german')).toBe(0);
    expect(feature(first, 'type_place')).toBe(0);
    expect(first!.features).toHaveLength(FEATURE_NAMES.length);
  });

  it('turns the probability into the decision at the committed threshold', () => {
    const model = constant(0);
    expect(answerProbability(model, new Array<number>(n).fill(3))).toBeCloseTo(0.5);
    expect(answerProbability({ ...model, bias: 2 }, new Array<number>(n).fill(0))).toBeCloseTo(0.881, 3);
  });
});
