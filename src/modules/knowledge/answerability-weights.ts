import type { AnswerabilityModel } from './answerability-model.js';

/**
 * The answerability model's coefficients, written by `npm run train:answerability`
 * (scripts/train-answerability.ts) from the development set and its hard negatives; do not edit
 * by hand. Figures: docs/knowledge.md "Answerability".
 */
export const ANSWERABILITY_MODEL: AnswerabilityModel = {
  version: 'answerability-lr-3',
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
    0.657212, 0.398307, 0.459615, 1, 0.051923, 0.104327, 0.360096, 0.0375, 0.529808, 0.494551,
  ],
  scale: [
    0.207557, 0.223748, 0.297895, 0.386661, 0.409414, 0.363547, 0.205945, 0.381714, 0.34285, 0.332302,
    0.764787, 0.274629, 0.498366, 1, 0.221872, 0.305684, 0.480028, 0.189984, 0.499111, 0.196585,
  ],
  weights: [
    0.074639, 0.234694, 0.119215, -0.057281, -0.43592, -0.100671, 0.307052, -0.025867, -0.03141, 1.477072,
    -0.866147, 0.685804, 0.322642, 0, 0.103087, 0.048868, 0.14663, 0.098326, -0.123369, -0.081738,
  ],
  bias: -0.872358,
  threshold: 0.34,
};
