/**
 * The knowledge score: how sure the search is that a chunk answers the question (0..1), from
 * the per-word BM25 figures of the search statement. Pure; see docs/knowledge.md "Scores".
 *
 * Each searched word weighs what it tells about the topic: its IDF in the corpus (a rare word
 * names the topic, a common one barely does), times a topic factor that is small for words that
 * only shape a question ("viel", "kostet", "year", a bare number). A word that no chunk of the
 * corpus holds weighs like a word found in a single chunk: it is the one word that names what the
 * question is about, and the knowledge base does not know it. The chunk's coverage is the
 * weighted share of the words it holds (a word's share is its BM25 part over its IDF, capped at
 * 1), and the score is that coverage mapped through the calibration measured on the
 * development set, so that it reads as the share of top hits at that score that are right.
 */

export interface QueryWord {
  /** The query word as searched (lowercase, codes joined). */
  word: string;
  /** IDF of its best lexeme in the corpus; null when no chunk holds it (nor a close spelling). */
  idf: number | null;
  /** How much it tells about the topic (0..1, see topicWeight); 1 when not given. */
  topic?: number;
  /** For a part of a compound the corpus holds only split: the question's word it is part of. */
  source?: string;
}

export interface HitEvidence {
  /** The calibrated score (0..1). */
  score: number;
  /** Weighted share of the question's words the chunk holds (0..1), before calibration. */
  coverage: number;
  /** Query words the chunk holds (by stem, close spelling, compound part or code form). */
  covered: string[];
  /** Query words the chunk lacks. */
  missing: string[];
  /** Per query word: its weight in the score and the share of it the chunk holds (0..1). */
  words: { word: string; weight: number; share: number }[];
  /** Cosine similarity of query and chunk vectors, when an embeddings endpoint is configured. */
  cosine: number | null;
}

/**
 * Words that shape a question but name no topic, in the four languages (the query language's
 * stop words are already gone; these survive because they are no stop words, or are stop words
 * only in another language).
 */
const QUESTION_SHAPE = new Set(
  [
    // German
    'viel viele vielen wieviel wieviele lange lang oft weit teuer kostet kosten koste gibt gab geben',
    'bekomme bekommt bekommen brauche braucht brauchen muss müssen musst darf dürfen darfst soll sollen',
    'wird werden wurde wurden worden kann kannst könnt möglich jemand etwas welche welcher welches welchen',
    'jahr jahre jahren uhrzeit genau ungefähr eigentlich schon immer noch heißt heißen nennt wer wem wen',
    'wessen hoch lautet adresse zahlt offen kommt stellt mehr maximal höchstens mindestens normalerweise',
    'gratis passiert geht gehen macht machen tun',
    // English
    'much many long often far old big large cost costs price year years time get got getting make',
    'made give need needs use possible allowed able anyone someone something else exactly kind type way',
    'there which whats what does did number go goes come comes keep find bring people less more maximum',
    'minimum amount address email since happen happens whose',
    // what is left of English contractions ("isn't", "won't"): the apostrophe splits the word
    'isn aren wasn weren don doesn didn won wouldn couldn shouldn haven hasn hadn mustn',
    // French, Italian
    'combien coûte coûtent prix faut peut quel quelle quels quelles année quanto quanti quanta costa',
    'costano prezzo anno serve può quale quali',
  ]
    .join(' ')
    .split(/\s+/),
);

/** Topic factor of a question-shaping word, and of a bare number ("2", "2024") as such. */
const SHAPE_WEIGHT = 0.2;
const NUMBER_WEIGHT = 0.3;
/** A word no chunk holds weighs this many times the IDF of a word found in one chunk. */
const UNKNOWN_WORD_WEIGHT = 1;
/**
 * A topic word the chunk lacks entirely, weighing at least STRONG_SHARE of the question's
 * heaviest word, multiplies the coverage by (1 − MISSING_PENALTY) on top of the share it takes.
 */
const STRONG_SHARE = 0.6;
const MISSING_PENALTY = 0.1;

/**
 * German writes every noun with a capital, and the nouns name what a question is about; a word
 * written in lower case there is a verb, adjective or adverb ("gefahrenen", "aufbewahrt") and
 * weighs this much.
 */
const GERMAN_LOWER_CASE_WEIGHT = 0.5;

/**
 * How much a query word tells about the topic, before its IDF (0..1). `asWritten` is how the
 * question writes it (with German, lower case marks a word that is no noun).
 */
export function topicWeight(word: string, language = 'en', asWritten = word): number {
  if (QUESTION_SHAPE.has(word)) return SHAPE_WEIGHT;
  if (/^\p{N}+$/u.test(word)) return NUMBER_WEIGHT;
  if (language === 'de' && /^\p{Ll}+$/u.test(asWritten)) return GERMAN_LOWER_CASE_WEIGHT;
  return 1;
}

/**
 * The topic weight of each searched word of a question: a word counts as written in lower case
 * only when the question never writes it with a capital.
 */
export function questionTopicWeights(question: string, language: string, words: string[]): number[] {
  const capitalised = new Set(
    (question.normalize('NFC').match(/\p{Lu}[\p{L}\p{N}]*/gu) ?? []).map((w) => w.toLowerCase()),
  );
  return words.map((word) => topicWeight(word, language, capitalised.has(word) ? word.toUpperCase() : word));
}

/**
 * Coverage → score, measured on the development set (eval/knowledge, both languages, top hit of
 * every question): at each coverage the share of top hits that were the right paragraph (or, for
 * a question no paragraph answers, counted wrong), made monotone and linearly interpolated.
 */
const CALIBRATION: [coverage: number, score: number][] = [
  [0, 0],
  [0.15, 0.1],
  [0.25, 0.2],
  [0.32, 0.4],
  [0.5, 0.55],
  [0.6, 0.72],
  [0.7, 0.8],
  [0.85, 0.9],
  [0.95, 0.97],
  [1, 1],
];

function interpolate(table: [number, number][], x: number): number {
  if (x <= table[0]![0]) return table[0]![1];
  for (let i = 1; i < table.length; i += 1) {
    const [x1, y1] = table[i]!;
    const [x0, y0] = table[i - 1]!;
    if (x <= x1) return y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
  }
  return table[table.length - 1]![1];
}

/** The calibrated score of a coverage value. */
export function calibratedScore(coverage: number): number {
  return interpolate(CALIBRATION, Math.min(Math.max(coverage, 0), 1));
}

/**
 * A chunk's evidence: `parts` holds, per query word (same order as `words`), the chunk's BM25
 * part for it (0 when it lacks the word); `corpusChunks` is the corpus size N.
 */
export function confidence(
  words: QueryWord[],
  parts: number[],
  corpusChunks: number,
  cosine: number | null,
): HitEvidence {
  const oneChunkIdf = Math.log(1 + (Math.max(corpusChunks, 1) - 0.5) / 1.5);
  let total = 0;
  let held = 0;
  const covered: string[] = [];
  const missing: string[] = [];
  const shares: HitEvidence['words'] = [];
  words.forEach(({ word, idf, topic }, i) => {
    const part = parts[i] ?? 0;
    const weight = (topic ?? topicWeight(word)) * (idf ?? UNKNOWN_WORD_WEIGHT * oneChunkIdf);
    const share = part > 0 && idf !== null && idf > 0 ? Math.min(1, part / idf) : 0;
    shares.push({ word, weight, share });
    total += weight;
    if (share > 0) {
      held += weight * share;
      covered.push(word);
    } else {
      missing.push(word);
    }
  });
  const heaviest = Math.max(0, ...shares.map((w) => w.weight));
  const strongMissing = shares.filter((w) => w.share === 0 && w.weight >= STRONG_SHARE * heaviest).length;
  const coverage = total > 0 ? (held / total) * (1 - MISSING_PENALTY) ** strongMissing : 0;
  return {
    score: calibratedScore(coverage),
    coverage,
    covered,
    missing,
    words: shares,
    cosine: cosine === null || !Number.isFinite(cosine) ? null : cosine,
  };
}
