import { franc } from 'franc-min';

/**
 * Pure text handling of the knowledge base: language detection, chunking with overlap, the
 * words of an entry (typo vocabulary) and the words of a query.
 */

export const LANGUAGES = ['de', 'en', 'fr', 'it'] as const;
export type Language = (typeof LANGUAGES)[number];

/** PostgreSQL text search configuration of each supported language. */
export const TS_CONFIG: Record<Language, string> = {
  de: 'german',
  en: 'english',
  fr: 'french',
  it: 'italian',
};

const FRANC_TO_LANGUAGE: Record<string, Language> = { deu: 'de', eng: 'en', fra: 'fr', ita: 'it' };

/** The platform's home language; used when a text is too short to tell. */
export const DEFAULT_LANGUAGE: Language = 'de';

/**
 * The language of an entry among the four supported ones. Texts under ~20 letters are too short
 * for trigram statistics, so they fall back to German rather than to a random guess.
 */
export function detectLanguage(text: string): { language: Language; detected: boolean } {
  const sample = text.slice(0, 5000);
  const code = franc(sample, { only: Object.keys(FRANC_TO_LANGUAGE), minLength: 20 });
  const language = FRANC_TO_LANGUAGE[code];
  return language ? { language, detected: true } : { language: DEFAULT_LANGUAGE, detected: false };
}

export interface ChunkOptions {
  /** Upper bound of a chunk in characters. */
  maxChars: number;
  /** Characters the next chunk repeats from the end of the previous one. */
  overlapChars: number;
}

export const DEFAULT_CHUNKING: ChunkOptions = { maxChars: 1000, overlapChars: 200 };

/**
 * Splits text into chunks of at most maxChars, preferring paragraph, then sentence, then word
 * boundaries. Consecutive chunks overlap so a fact that straddles a border is found whole in
 * at least one of them.
 */
export function chunkText(text: string, options: ChunkOptions = DEFAULT_CHUNKING): string[] {
  const clean = text.replace(/\r\n?/g, '\n').trim();
  if (clean === '') return [];
  const { maxChars, overlapChars } = options;
  const chunks: string[] = [];
  let start = 0;
  while (start < clean.length) {
    let end = Math.min(start + maxChars, clean.length);
    if (end < clean.length) end = breakPoint(clean, start + Math.floor(maxChars / 2), end);
    const chunk = clean.slice(start, end).trim();
    if (chunk) chunks.push(chunk);
    if (end >= clean.length) break;
    let next = Math.max(end - overlapChars, start + 1);
    // Start the overlap at a word so no chunk begins with half a word.
    while (next < end && !/\s/.test(clean[next - 1] ?? ' ')) next += 1;
    start = next < end ? next : end;
  }
  return chunks;
}

function breakPoint(text: string, from: number, to: number): number {
  const window = text.slice(from, to);
  const paragraph = window.lastIndexOf('\n\n');
  if (paragraph >= 0) return from + paragraph + 2;
  let sentence = -1;
  for (const match of window.matchAll(/[.!?:;]\s|\n/g)) sentence = match.index + match[0].length;
  if (sentence >= 0) return from + sentence;
  const space = window.search(/\s\S*$/);
  if (space >= 0) return from + space + 1;
  return to;
}

const LETTERS = /\p{L}+/gu;
const WORDS = /[\p{L}\p{N}]+/gu;

/** Distinct words (4–40 letters, lowercase) of a text, for the tenant's typo vocabulary. */
export function vocabularyOf(text: string, max = 5000): string[] {
  const words = new Set<string>();
  for (const match of text.normalize('NFC').toLowerCase().matchAll(LETTERS)) {
    const word = match[0];
    if (word.length >= 4 && word.length <= 40) words.add(word);
    if (words.size >= max) break;
  }
  return [...words].sort();
}

/**
 * Question and politeness words that the four stop-word lists keep but that say nothing about
 * the topic ("Wann habt ihr geöffnet, bitte?" is about opening hours, not about "habt").
 */
const FILLER = new Set(
  [
    'wann warum wieso weshalb woher wohin bitte danke gerne gern hallo möchte möchten würde würden',
    'gibt habt könnt könnte könnten kann können sagen wissen frage fragen eigentlich mal hi hey',
    'please thanks thank hello tell know want would could like question bonjour merci svp quand',
    'comment pourquoi voudrais savoir puis peux ciao grazie quando perché perche vorrei sapere posso',
    'salve',
  ]
    .join(' ')
    .split(' '),
);

export const MAX_QUERY_WORDS = 16;

/**
 * The words of a search query: lowercase letter/digit runs, without filler words. Only letters
 * and digits survive, so a word can be handed to to_tsquery without any query syntax in it.
 */
export function queryWords(query: string): string[] {
  const words = new Set<string>();
  for (const match of query.normalize('NFC').toLowerCase().matchAll(WORDS)) {
    const word = match[0];
    if (word.length < 2 || word.length > 60 || FILLER.has(word)) continue;
    words.add(word);
    if (words.size >= MAX_QUERY_WORDS) break;
  }
  return [...words];
}
