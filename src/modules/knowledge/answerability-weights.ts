import type { AnswerabilityModel } from './answerability-model.js';

/**
 * The answerability model's coefficients, written by `npm run train:answerability`
 * (scripts/train-answerability.ts) from the development set and its hard negatives; do not edit
 * by hand. Figures: docs/knowledge.md "Answerability".
 */
export const ANSWERABILITY_MODEL: AnswerabilityModel = {
  version: 'answerability-lr-4',
  features: [
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
  ],
  mean: [
    0.658739, 0.595419, 0.335529, 0.550633, 0.212981, 0.156731, 0.345777, 0.692959, 0.136058, 0.03147,
    0.657212, 0.396803, 0.44375, 1, 0.051923, 0.104327, 0.361058, 0.0375, 0.529808, 0.494551,
  ],
  scale: [
    0.207557, 0.223748, 0.297895, 0.386661, 0.409414, 0.363547, 0.205945, 0.381714, 0.34285, 0.332302,
    0.764787, 0.274005, 0.496826, 1, 0.221872, 0.305684, 0.480307, 0.189984, 0.499111, 0.196585,
  ],
  weights: [
    0.076271, 0.232613, 0.111673, -0.060781, -0.451971, -0.101209, 0.294209, -0.030399, -0.025732, 1.465421,
    -0.873472, 0.678037, 0.365228, 0, 0.097022, 0.031732, 0.133771, 0.087121, -0.122521, -0.083401,
  ],
  bias: -0.883569,
  threshold: 0.33,
};
