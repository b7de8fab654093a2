import type { QueryWord } from './confidence.js';
import type { KnowledgeHit } from './search.js';
import { questionNames, coversTerm } from '../models/index.js';
import type { Language } from '../../shared/language.js';
import { NAME_PREFIXES } from '../../shared/text.js';
import { answerProbability, hitFeatures, type AnswerabilityModel } from './answerability-model.js';
import { ANSWERABILITY_MODEL } from './answerability-weights.js';

/**
 * Whether the knowledge base answers a question: a decision of its own, separate from the
 * ranking. Pure; see docs/knowledge.md "Answerability".
 *
 * A hit can answer only when its calibrated score reaches the minimum score and it covers the
 * question's key terms: every code or number the question names ("AS-206", "4021", "2005") and
 * every name (a capitalised word inside an English, French or Italian sentence: "Tesla", "Mona
 * Lisa"; in German every noun is capitalised, so there names are not told apart). Coverage is
 * the search's own: a word counts as held when the chunk holds one of its stems, close spellings,
 * compound parts or code forms. With an embeddings endpoint, the cosine similarity of question and
 * chunk is a second opinion: a hit far from the question in meaning does not answer it, however
 * many words it shares.
 */

export type AnswerReason = 'answer' | 'no_hits' | 'low_score' | 'missing_key_terms' | 'low_similarity';

export interface Answerability {
  /** true: the knowledge base answers this (the chat uses `hits`); false: hand over. */
  answer: boolean;
  reason: AnswerReason;
  /** The hits the chat may use: those at or above the minimum score that cover every key term. */
  hits: KnowledgeHit[];
  /** The question's key terms (as searched: lowercase, codes joined). */
  keyTerms: string[];
  /** Key terms the best hit at or above the minimum score lacks (empty when it answers). */
  missingTerms: string[];
}

/** Below this cosine a hit does not answer, whatever its words (with an embeddings endpoint). */
export const MIN_ANSWER_COSINE = 0.3;
/**
 * From this cosine a hit is close enough in meaning to answer even when it shares no word with the
 * question beyond its title (with an embeddings endpoint; not calibrated, see docs/knowledge.md).
 */
export const CLOSE_MEANING_COSINE = 0.5;

/**
 * The question's key terms among its searched words: every code or number, and every name
 * (English, French, Italian: see questionNames) except the words that begin names and are often
 * abbreviated there ("Saint Edmund's" against entries on "St. Edmund's").
 */
export function keyTerms(question: string, language: Language, words: QueryWord[]): string[] {
  const searched = new Set(words.map((w) => w.word));
  const codes = words.map((w) => w.word).filter((word) => /\p{N}/u.test(word));
  const names = questionNames(question, language).filter(
    (name) => searched.has(name) && !NAME_PREFIXES.has(name),
  );
  return [...new Set([...codes, ...names])];
}

/**
 * The question's topic words: searched words of topic weight 1 (confidence.ts: no question word,
 * no number; in German a word written with a capital), without a German question's first word,
 * which is capitalised as the sentence's start ("Hat", "Bietet"), unless the question writes it
 * with a capital elsewhere too.
 */
export function topicWords(question: string, language: Language, words: QueryWord[]): string[] {
  const text = question.normalize('NFC');
  const first = new Set(
    [...text.matchAll(/(?:^|[.!?]\s+)[^\p{L}\p{N}]*([\p{L}\p{N}]+)/gu)].map((m) => m[1]!.toLowerCase()),
  );
  const later = new Set(
    [...text.matchAll(/(?<=[^\p{L}\p{N}][^\p{L}\p{N}]*)(?<![.!?]\s+)(\p{Lu}[\p{L}\p{N}]*)/gu)].map((m) =>
      m[1]!.toLowerCase(),
    ),
  );
  return words
    .filter(({ word, topic }) => (topic ?? 1) >= 1 && !/\p{N}/u.test(word))
    .filter(({ word }) => language !== 'de' || !first.has(word) || later.has(word))
    .map(({ word }) => word);
}

/**
 * Whether a hit answers more than its title: when the question has topic words beyond the ones
 * the hit's title holds (its business and subject: "Hotel Seeblick – Restaurant"), the hit must
 * cover, outside its title, a topic word, a German word in lower case (topic weight 0.5) or a
 * code or number of three or more digits. Otherwise it shares only the business's name with a
 * question that asks something else ("Hat das Hotel Seeblick einen Hubschrauberlandeplatz?",
 * "Is there a sauna at The Foundry Cowork?"). Returns the question's topic words outside the title
 * that the hit lacks when it does not answer, else an empty list.
 */
export function titleOnly(
  hit: KnowledgeHit,
  topics: string[],
  words: QueryWord[],
  context: TitleContext = { shared: new Set(), ownSubject: false },
): string[] {
  // A title word names the business (or what every hit is about) when another hit's title holds
  // it too, or when the text does not repeat it. With `ownSubject`, a title word of this hit
  // alone that its text repeats names the hit's own subject ("… – E-Bike-Akkus": "Akkus für
  // E-Bikes prüfen wir …") and counts like a word of the text.
  const inTitle = (word: string) =>
    coversTerm(hit.title, word) &&
    (!context.ownSubject || context.shared.has(word) || !coversTerm(hit.content, word));
  const asked = topics.filter((word) => !inTitle(word));
  if (asked.length === 0) return [];
  const covered = new Set(hit.evidence?.covered ?? []);
  // A word searched as the parts of a compound counts only when the hit holds all of them
  // ("Schulbus": "Schule" alone is no evidence).
  const whole = (word: string, source: string | undefined) =>
    source === undefined ||
    words.filter((w) => (w.source ?? w.word) === source).every((w) => covered.has(w.word));
  const answers = words.some(
    ({ word, topic, source }) =>
      covered.has(word) &&
      whole(word, source) &&
      !inTitle(word) &&
      (topics.includes(word) ||
        ((topic ?? 1) >= CONTENT_TOPIC_WEIGHT && (topic ?? 1) < 1) ||
        (/\p{N}/u.test(word) && (/\p{L}/u.test(word) || word.length >= 3))),
  );
  return answers ? [] : asked.filter((word) => !covered.has(word));
}

/** What the title rule knows of the other hits (see titleOnly). */
export interface TitleContext {
  /** Words that the titles of two or more of the top hits hold. */
  shared: ReadonlySet<string>;
  /** Whether a title word the text repeats counts as the hit's own subject. */
  ownSubject: boolean;
}

/** The least topic weight of a word that, held outside the title, shows a hit answers more than its title. */
const CONTENT_TOPIC_WEIGHT = 0.5;

/** The decision's input: the search's hits (best first, with their evidence) and the query's words. */
export interface DecisionInput {
  question: string;
  /** The question's language (models/language.ts). */
  language: Language;
  hits: KnowledgeHit[];
  words: QueryWord[];
  minScore: number;
  /**
   * `model` (default): the learned model decides which hits answer; `rules`: the hand-set title
   * rule of before, kept for comparison (scripts/eval-knowledge.ts --rules).
   */
  mode?: 'model' | 'rules';
  /** The model to use; the committed one (answerability-weights.ts) by default. */
  model?: AnswerabilityModel;
}

/** A hit the model weighs: at or above the minimum score and holding every key term. */
export interface Candidate {
  hit: KnowledgeHit;
  features: number[];
  /** The title rule's verdict: the question's topic words outside the title that the hit lacks. */
  titleMissing: string[];
}

/** What the decision knows of a question before it weighs the hits. */
interface Analysis {
  terms: string[];
  passing: KnowledgeHit[];
  candidates: Candidate[];
}

function analyse(input: DecisionInput): Analysis {
  const terms = keyTerms(input.question, input.language, input.words);
  const passing = input.hits.filter((hit) => hit.score >= input.minScore);
  const topics = topicWords(input.question, input.language, input.words);
  const context: TitleContext = {
    shared: sharedTitleWords(
      input.hits,
      input.words.map((w) => w.word),
    ),
    // Only when the corpus knows every topic word: a word no entry holds ("Mosambik") is what
    // the question asks about, and a hit's own subject does not answer it.
    ownSubject: input.words.every((w) => w.idf !== null || !topics.includes(w.word)),
  };
  const candidates = passing
    .filter((hit) => missingOf(hit, terms).length === 0)
    .map((hit) => {
      // Close in meaning: the vectors, not the shared words, show that it answers.
      const cosine = hit.evidence?.cosine;
      const titleMissing =
        cosine !== null && cosine !== undefined && cosine >= CLOSE_MEANING_COSINE
          ? []
          : titleOnly(hit, topics, input.words, context);
      const features = hitFeatures(
        {
          question: input.question,
          language: input.language,
          hits: input.hits,
          words: input.words,
          keyTerms: terms,
          topics,
          titleOnly: titleMissing.length > 0,
        },
        hit,
      );
      return { hit, features, titleMissing };
    });
  return { terms, passing, candidates };
}

/**
 * The hits the model weighs for a question, with their features (for training and evaluation:
 * scripts/train-answerability.ts).
 */
export function answerCandidates(input: DecisionInput): Candidate[] {
  return analyse(input).candidates;
}

/**
 * The decision for a question, from the search's hits (best first, with their evidence) and
 * the query's words.
 */
export function decideAnswerability(input: DecisionInput): Answerability {
  if (input.hits.length === 0)
    return no('no_hits', keyTerms(input.question, input.language, input.words), []);
  const { terms, passing, candidates } = analyse(input);
  if (passing.length === 0) return no('low_score', terms, []);
  if (candidates.length === 0) return no('missing_key_terms', terms, missingOf(passing[0]!, terms));
  const model = input.model ?? ANSWERABILITY_MODEL;
  const answering = candidates.filter((c) =>
    input.mode === 'rules'
      ? c.titleMissing.length === 0
      : (c.hit.evidence?.cosine ?? 0) >= CLOSE_MEANING_COSINE ||
        answerProbability(model, c.features) >= model.threshold,
  );
  if (answering.length === 0) {
    // The topic words the best hit lacks outside its title, when the title rule finds any.
    const lacking = candidates[0]!.titleMissing;
    return lacking.length > 0 ? no('missing_key_terms', terms, lacking) : no('low_score', terms, []);
  }
  const close = answering
    .map((c) => c.hit)
    .filter((hit) => {
      const cosine = hit.evidence?.cosine;
      return cosine === null || cosine === undefined || cosine >= MIN_ANSWER_COSINE;
    });
  if (close.length === 0) return no('low_similarity', terms, []);
  return { answer: true, reason: 'answer', hits: close, keyTerms: terms, missingTerms: [] };
}

/** The words that the titles of two or more of the hits hold (the business's name). */
export function sharedTitleWords(hits: KnowledgeHit[], words: string[]): Set<string> {
  return new Set(words.filter((word) => hits.filter((hit) => coversTerm(hit.title, word)).length >= 2));
}

function missingOf(hit: KnowledgeHit, terms: string[]): string[] {
  // A hit without evidence (no lexical words searched) holds no key term.
  const covered = new Set(hit.evidence?.covered ?? []);
  return terms.filter((term) => !covered.has(term));
}

function no(reason: AnswerReason, keyTerms: string[], missingTerms: string[]): Answerability {
  return { answer: false, reason, hits: [], keyTerms, missingTerms };
}

/**
 * Which hits a model is given. `strict`: the hits the answerability decision keeps (none when it
 * says no) — the offline answerer quotes a sentence and cannot judge whether it answers, so the
 * decision must. `threshold`: every hit at or above the minimum score — a real language model
 * (OpenAI-compatible, Anthropic) reads the hits itself, is told to answer only from them and to
 * say when they do not answer, so a lexical rule does not pre-empt its judgement.
 */
export type KnowledgeGate = 'strict' | 'threshold';

/** The gate of a model provider (`offline`, `openai`, `anthropic`, …). */
export function gateFor(provider: string): KnowledgeGate {
  return provider === 'offline' ? 'strict' : 'threshold';
}

/** The hits that pass `gate`, from the decision and the searched hits (best first). */
export function gatedHits(
  gate: KnowledgeGate,
  found: { hits: KnowledgeHit[]; searched: KnowledgeHit[] },
  minScore: number,
): KnowledgeHit[] {
  return gate === 'strict' ? found.hits : found.searched.filter((hit) => hit.score >= minScore);
}
