import { countTokens as countWithTokenizer } from 'gpt-tokenizer';
import { LRUCache } from 'lru-cache';
import type { ModelMessage } from './provider.js';

/*
 * Token counts use the o200k_base BPE tokenizer (GPT-4o family). Other models tokenize a
 * little differently, so this is the figure for providers that report no usage themselves.
 *
 * A system prompt is mostly the same paragraphs request after request (security layer, rules,
 * the bot's prompt), with a few that change (knowledge hits, user text). Long texts are
 * counted paragraph by paragraph, and the counts of whole texts and of paragraphs are cached. The
 * sum is exact: the tokenizer first splits text into pieces by a regular expression, and a
 * piece never continues past a line break that is followed by a non-space character, so no
 * token spans the cut (a test compares both ways of counting).
 */
// Bounded by bytes, not entries: the keys are whole texts and paragraphs of any length.
const cache = new LRUCache<string, number>({
  maxSize: 16 * 1024 * 1024,
  sizeCalculation: (_count, text) => 2 * text.length + 64,
});
const CACHE_MIN_LENGTH = 200;
const PARAGRAPH_CACHE_MIN_LENGTH = 40;

function cached(text: string, count: (text: string) => number): number {
  let value = cache.get(text);
  if (value === undefined) {
    value = count(text);
    cache.set(text, value);
  }
  return value;
}

/** The paragraphs of a text, each cut just after a blank line followed by a non-space character. */
function paragraphs(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let at = text.indexOf('\n\n');
  while (at !== -1) {
    let end = at + 2;
    while (text[end] === '\n') end += 1;
    if (end < text.length && !/\s/.test(text[end]!)) {
      parts.push(text.slice(start, end));
      start = end;
    }
    at = text.indexOf('\n\n', end);
  }
  parts.push(text.slice(start));
  return parts;
}

function countByParagraph(text: string): number {
  let total = 0;
  for (const paragraph of paragraphs(text)) {
    total +=
      paragraph.length < PARAGRAPH_CACHE_MIN_LENGTH
        ? countWithTokenizer(paragraph)
        : cached(paragraph, countWithTokenizer);
  }
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
