import { describe, expect, it } from 'vitest';
import { decideAnswerability, keyTerms } from '../../src/modules/knowledge/answerability.js';
import {
  calibratedScore,
  confidence,
  topicWeight,
  type QueryWord,
} from '../../src/modules/knowledge/confidence.js';
import type { KnowledgeHit } from '../../src/modules/knowledge/search.js';
import { queryWords } from '../../src/modules/knowledge/text.js';
import { detectLanguage } from '../../src/modules/models/language.js';

/** The query's words as the search sees them; every word known to the corpus unless listed. */
function wordsOf(question: string, unknown: string[] = []): QueryWord[] {
  return queryWords(question).map((word) => ({ word, idf: unknown.includes(word) ? null : 3 }));
}

function hit(covered: string[], score: number, cosine: number | null = null, n = 1): KnowledgeHit {
  return {
    entryId: `00000000-0000-4000-8000-00000000000${n}`,
    chunkId: `00000000-0000-4000-9000-00000000000${n}`,
    title: `Eintrag ${n}`,
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
    ["Who is the nurse at Saint Edmund's?", ['saint', 'edmund']],
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
