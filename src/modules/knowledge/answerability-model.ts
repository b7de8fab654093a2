import type { QueryWord } from './confidence.js';
import type { KnowledgeHit } from './search.js';
import type { Language } from '../../shared/language.js';
import { bestSentence, coversTerm, questionType } from '../models/index.js';

/**
 * The learned part of the answerability decision: a logistic regression over what the search
 * already knows about a hit, giving the probability that the hit is the entry that answers the
 * question. Pure; trained by `scripts/train-answerability.ts` on the development set and its hard
 * negatives, its coefficients in `answerability-weights.ts`. See docs/knowledge.md
 * "Answerability".
 */

/** The features, in the order of the model's weights. */
export const FEATURE_NAMES = [
  'score',
  'coverage',
  'topic_in_title',
  'topic_outside_title',
  'title_only',
  'key_terms',
  'missing_mass',
  'missing_heaviest',
  'unknown_topic',
  'margin',
  'rank',
  'sentence_coverage',
  'sentence_type_fit',
  'sentence_answers',
  'type_person',
  'type_time',
  'type_number',
  'type_place',
  'german',
  'topic_words',
] as const;

export interface AnswerabilityModel {
  /** Changes whenever the features or the training data change. */
  version: string;
  features: readonly string[];
  /** Standardisation of each feature: (x − mean) / scale. */
  mean: number[];
  scale: number[];
  weights: number[];
  bias: number;
  /** A hit answers from this probability on (the operating point). */
  threshold: number;
}

/** The score a hit's margin is measured against when no other hit scores higher. */
const MARGIN_FLOOR = 0.4;

/** What the features of one hit are computed from (the decision's own view of the question). */
export interface FeatureInput {
  question: string;
  language: Language;
  /** The top hits at any score, best first. */
  hits: KnowledgeHit[];
  words: QueryWord[];
  keyTerms: string[];
  topics: string[];
  /** Whether the title rule (answerability.ts titleOnly) finds the hit answering only its title. */
  titleOnly: boolean;
}

/** The feature vector of `hit` (one of `input.hits`), in the order of FEATURE_NAMES. */
export function hitFeatures(input: FeatureInput, hit: KnowledgeHit): number[] {
  const evidence = hit.evidence;
  const covered = new Set(evidence?.covered ?? []);
  const { topics } = input;
  const inTitle = topics.filter((word) => coversTerm(hit.title, word));
  const asked = topics.filter((word) => !inTitle.includes(word));
  const outside = asked.length === 0 ? 1 : asked.filter((word) => covered.has(word)).length / asked.length;
  const shares = evidence?.words ?? [];
  const total = shares.reduce((sum, w) => sum + w.weight, 0);
  const heaviest = Math.max(0, ...shares.map((w) => w.weight));
  const missing = shares.filter((w) => w.share === 0);
  const missingMass = total > 0 ? missing.reduce((sum, w) => sum + w.weight, 0) / total : 1;
  const missingHeaviest = heaviest > 0 ? Math.max(0, ...missing.map((w) => w.weight)) / heaviest : 1;
  const unknownTopic = input.words.some((w) => w.idf === null && topics.includes(w.word)) ? 1 : 0;
  const rank = Math.max(0, input.hits.indexOf(hit));
  const others = input.hits.filter((other) => other !== hit).map((other) => other.score);
  // Against the best other hit, or the default minimum score when no other hit reaches it: a
  // small knowledge base has few hits, and a missing competitor is no evidence.
  const margin = hit.score - Math.max(MARGIN_FLOOR, ...others);
  const sentence = bestSentence(hit.content, input.question, input.language, hit.title, input.keyTerms);
  const type = questionType(input.question);
  return [
    hit.score,
    evidence?.coverage ?? 0,
    topics.length === 0 ? 0 : inTitle.length / topics.length,
    outside,
    input.titleOnly ? 1 : 0,
    input.keyTerms.length > 0 ? 1 : 0,
    missingMass,
    missingHeaviest,
    unknownTopic,
    margin,
    rank,
    Math.min(sentence.coverage, 1),
    sentence.typeFit,
    sentence.answering ? 1 : 0,
    type === 'person' ? 1 : 0,
    type === 'time' ? 1 : 0,
    type === 'number' || type === 'price' ? 1 : 0,
    type === 'place' ? 1 : 0,
    input.language === 'de' ? 1 : 0,
    Math.min(topics.length, 6) / 6,
  ];
}

/** The model's probability for a feature vector. */
export function answerProbability(model: AnswerabilityModel, features: number[]): number {
  let z = model.bias;
  for (let i = 0; i < model.weights.length; i += 1) {
    z += model.weights[i]! * ((features[i]! - model.mean[i]!) / (model.scale[i]! || 1));
  }
  return 1 / (1 + Math.exp(-z));
}
