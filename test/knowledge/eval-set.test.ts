import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The development set of the knowledge-search evaluation (eval/knowledge/README.md). */

const KINDS = [
  'plain',
  'paraphrase',
  'compound',
  'code',
  'number',
  'abbreviation',
  'stopword',
  'unanswerable',
] as const;
type Kind = (typeof KINDS)[number];

interface Paragraph {
  id: string;
  title: string;
  content: string;
}
interface Question {
  id: string;
  question: string;
  paragraph: string | null;
  answer: string | null;
  kind: Kind;
}
interface Variant {
  id: string;
  /** The question it is a variant of: the same question with a greeting, thanks or sign-off. */
  of: string;
  question: string;
}
interface EvalSet {
  language: string;
  paragraphs: Paragraph[];
  questions: Question[];
  variants: Variant[];
}

function load(language: string): EvalSet {
  const url = new URL(`../../eval/knowledge/dev-${language}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as EvalSet;
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * The questions whose answer is not where the format says: an unanswerable one with a paragraph
 * or answer, an answerable one whose answer (trimmed, not empty) is not verbatim in the content of
 * its paragraph.
 */
function misplacedAnswers(set: Pick<EvalSet, 'paragraphs' | 'questions'>): string[] {
  const content = new Map(set.paragraphs.map((p) => [p.id, p.content]));
  return set.questions
    .filter((q) =>
      q.kind === 'unanswerable'
        ? q.paragraph !== null || q.answer !== null
        : !q.answer ||
          q.answer.trim() !== q.answer ||
          !(content.get(q.paragraph ?? '') ?? '').includes(q.answer),
    )
    .map((q) => q.id);
}

const MIN_PARAGRAPHS = 110;
const MIN_QUESTIONS = 330;
const MIN_PER_KIND = 25;
/** The default chunk size of the knowledge module: a paragraph stays one chunk. */
const MAX_CONTENT_CHARS = 1000;

describe.each(['de', 'en'])('knowledge dev set %s', (language) => {
  const set = load(language);

  it('has exactly the documented fields', () => {
    expect(Object.keys(set).sort()).toEqual(['language', 'paragraphs', 'questions', 'variants']);
    expect(set.language).toBe(language);
    for (const paragraph of set.paragraphs) {
      expect(Object.keys(paragraph).sort()).toEqual(['content', 'id', 'title']);
      expect(paragraph.title.trim()).not.toBe('');
    }
    for (const question of set.questions) {
      expect(Object.keys(question).sort()).toEqual(['answer', 'id', 'kind', 'paragraph', 'question']);
      expect(question.question.trim()).not.toBe('');
      expect(KINDS).toContain(question.kind);
    }
  });

  it('holds greeting and sign-off variants of its questions, each containing its question', () => {
    const questions = new Map(set.questions.map((q) => [q.id, q.question]));
    expect(set.variants.length).toBeGreaterThanOrEqual(20);
    for (const variant of set.variants) {
      expect(Object.keys(variant).sort()).toEqual(['id', 'of', 'question']);
      expect(variant.id).toMatch(new RegExp(`^${language}-v\\d{3}$`));
      expect(variant.question, variant.id).toContain(questions.get(variant.of));
      expect(variant.question, variant.id).not.toBe(questions.get(variant.of));
    }
    expect(new Set(set.variants.map((v) => v.id)).size).toBe(set.variants.length);
  });

  it('numbers paragraphs and questions with unique ids of the language', () => {
    const paragraphIds = set.paragraphs.map((p) => p.id);
    const questionIds = set.questions.map((q) => q.id);
    for (const id of paragraphIds) expect(id).toMatch(new RegExp(`^${language}-p\\d{3}$`));
    for (const id of questionIds) expect(id).toMatch(new RegExp(`^${language}-q\\d{3}$`));
    expect(new Set(paragraphIds).size).toBe(paragraphIds.length);
    expect(new Set(questionIds).size).toBe(questionIds.length);
    const texts = set.questions.map((q) => q.question);
    expect(new Set(texts).size).toBe(texts.length);
  });

  it('keeps every paragraph between 60 and 180 words and within one chunk', () => {
    const outside = set.paragraphs.filter((p) => words(p.content) < 60 || words(p.content) > 180);
    expect(outside.map((p) => p.id)).toEqual([]);
    const long = set.paragraphs.filter((p) => p.content.length > MAX_CONTENT_CHARS);
    expect(long.map((p) => p.id)).toEqual([]);
  });

  it('reaches the minimum sizes, with 10–25 % unanswerable questions and every kind represented', () => {
    expect(set.paragraphs.length).toBeGreaterThanOrEqual(MIN_PARAGRAPHS);
    expect(set.questions.length).toBeGreaterThanOrEqual(MIN_QUESTIONS);
    const perKind = new Map<Kind, number>(KINDS.map((kind) => [kind, 0]));
    for (const question of set.questions) perKind.set(question.kind, (perKind.get(question.kind) ?? 0) + 1);
    for (const kind of KINDS) {
      if (kind !== 'plain') expect(perKind.get(kind), kind).toBeGreaterThanOrEqual(MIN_PER_KIND);
    }
    const unanswerable = (perKind.get('unanswerable') ?? 0) / set.questions.length;
    expect(unanswerable).toBeGreaterThanOrEqual(0.1);
    expect(unanswerable).toBeLessThanOrEqual(0.25);
  });

  it('takes every answer verbatim from the content of its paragraph', () => {
    expect(misplacedAnswers(set)).toEqual([]);
    for (const question of set.questions) {
      const answer = question.answer ?? '';
      if (question.kind !== 'unanswerable') expect(answer.length, question.id).toBeLessThanOrEqual(80);
    }
  });
});

/** The encyclopedia set: articles of invented subjects, "Article – Section" titles, no variants. */
describe.each(['de', 'en'])('knowledge encyclopedia set %s', (language) => {
  const url = new URL(`../../eval/knowledge/encyclopedia-${language}.json`, import.meta.url);
  const set = JSON.parse(readFileSync(url, 'utf8')) as Omit<EvalSet, 'variants'>;
  const articleOf = (title: string) => title.split(' – ')[0]!;

  it('has the fields of the development set without variants, and ids of its own', () => {
    expect(Object.keys(set).sort()).toEqual(['language', 'paragraphs', 'questions']);
    expect(set.language).toBe(language);
    for (const paragraph of set.paragraphs) {
      expect(Object.keys(paragraph).sort()).toEqual(['content', 'id', 'title']);
      expect(paragraph.id).toMatch(new RegExp(`^${language}-e-p\\d{3}$`));
      expect(paragraph.title, paragraph.id).toMatch(/^[^–]+ – [^–]+$/);
    }
    for (const question of set.questions) {
      expect(Object.keys(question).sort()).toEqual(['answer', 'id', 'kind', 'paragraph', 'question']);
      expect(question.id).toMatch(new RegExp(`^${language}-e-q\\d{3}$`));
      expect(KINDS).toContain(question.kind);
    }
    expect(new Set(set.paragraphs.map((p) => p.id)).size).toBe(set.paragraphs.length);
    expect(new Set(set.questions.map((q) => q.id)).size).toBe(set.questions.length);
  });

  it('holds at least 24 articles of two or three paragraphs, each within one chunk', () => {
    const articles = new Map<string, number>();
    for (const p of set.paragraphs)
      articles.set(articleOf(p.title), (articles.get(articleOf(p.title)) ?? 0) + 1);
    expect(articles.size).toBeGreaterThanOrEqual(24);
    for (const [article, count] of articles) expect([2, 3], article).toContain(count);
    const outside = set.paragraphs.filter(
      (p) => words(p.content) < 60 || words(p.content) > 180 || p.content.length > MAX_CONTENT_CHARS,
    );
    expect(outside.map((p) => p.id)).toEqual([]);
  });

  it('takes every answer verbatim from its paragraph and asks one unanswerable question per article', () => {
    expect(misplacedAnswers(set)).toEqual([]);
    const articles = new Set(set.paragraphs.map((p) => articleOf(p.title)));
    expect(set.questions.filter((q) => q.kind === 'unanswerable').length).toBe(articles.size);
    expect(set.questions.length - articles.size).toBeGreaterThanOrEqual(200);
  });
});
