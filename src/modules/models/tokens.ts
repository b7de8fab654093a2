import { countTokens as countWithTokenizer } from 'gpt-tokenizer';
import { LRUCache } from 'lru-cache';
import type { ModelMessage } from './provider.js';

/*
 * Token counts use the o200k_base BPE tokenizer (GPT-4o family). Other models tokenize a
 * little differently, so this is the figure for providers that report no usage themselves.
 *
 * A prompt is mostly the same text request after request (security layer, rules, the bot's
 * prompt, the knowledge entries' contents), with a few lines that change (a hit's score, the
 * user's text). Long texts are counted paragraph by paragraph, and a paragraph not counted
 * before line by line, with the counts of whole texts, paragraphs and lines cached: per chat,
 * only the lines that are new are tokenized. The sum is exact: the tokenizer first splits
 * text into pieces by a regular expression, and no piece continues past a line break that is
 * followed by a character other than white space and '/' (only punctuation followed by line
 * breaks and slashes, `[^\s\p{L}\p{N}]+[\r\n/]*`, could), so no token spans such a cut (a
 * test compares both ways of counting).
 */
// Bounded by bytes, not entries: the keys are whole texts, paragraphs and lines of any length.
const cache = new LRUCache<string, number>({
  maxSize: 16 * 1024 * 1024,
  sizeCalculation: (_count, text) => 2 * text.length + 64,
});
const CACHE_MIN_LENGTH = 200;
const PART_CACHE_MIN_LENGTH = 40;

function cached(text: string, count: (text: string) => number): number {
  let value = cache.get(text);
  if (value === undefined) {
    value = count(text);
    cache.set(text, value);
  }
  return value;
}

/** Whether a cut just before `text[at]` (after a line break) leaves every tokenizer piece whole. */
function safeCut(text: string, at: number): boolean {
  const next = text.charCodeAt(at);
  // White space (space, tab, line breaks, form feed and the like) or '/', or past the end.
  return !(Number.isNaN(next) || next === 0x2f || next <= 0x20 || /\s/.test(text[at]!));
}

/**
 * The parts of a text, each cut just after a line break (`separator` "\n\n": a blank line;
 * "\n": any line break) followed by a character that no tokenizer piece runs into.
 */
function parts(text: string, separator: string): string[] {
  const found: string[] = [];
  let start = 0;
  let at = text.indexOf(separator);
  while (at !== -1) {
    let end = at + separator.length;
    while (text.charCodeAt(end) === 0x0a) end += 1;
    if (safeCut(text, end)) {
      found.push(text.slice(start, end));
      start = end;
    }
    at = text.indexOf(separator, end);
  }
  found.push(start === 0 ? text : text.slice(start));
  return found;
}

function countPart(part: string, count: (text: string) => number): number {
  return part.length < PART_CACHE_MIN_LENGTH ? countWithTokenizer(part) : cached(part, count);
}

function countByLine(paragraph: string): number {
  const lines = parts(paragraph, '\n');
  if (lines.length === 1) return countWithTokenizer(paragraph);
  let total = 0;
  for (const line of lines) total += countPart(line, countWithTokenizer);
  return total;
}

function countByParagraph(text: string): number {
  let total = 0;
  for (const paragraph of parts(text, '\n\n')) total += countPart(paragraph, countByLine);
  return total;
}

export function countTokens(text: string): number {
  if (text.length < CACHE_MIN_LENGTH) return countWithTokenizer(text);
  return cached(text, countByParagraph);
}

/** Tokens of a chat prompt: system text and every message, plus the per-message framing. */
export function countPromptTokens(system: string, messages: readonly ModelMessage[]): number {
  const FRAMING_PER_MESSAGE = 4;
  let total = countTokens(system) + FRAMING_PER_MESSAGE;
  for (const message of messages) total += countTokens(message.content) + FRAMING_PER_MESSAGE;
  return total;
}
