import { countTokens as countWithTokenizer } from 'gpt-tokenizer';
import { LRUCache } from 'lru-cache';
import type { ModelMessage } from './provider.js';

/*
 * Token counts use the o200k_base BPE tokenizer (GPT-4o family). Other models tokenize a
 * little differently, so this is the figure for providers that report no usage themselves.
 *
 * A system prompt is mostly the same paragraphs request after request (security layer, rules,
 * the bot's prompt), with a few that change (knowledge hits, user text). Long texts are
 * therefore counted paragraph by paragraph and the counts of long paragraphs are cached. The
 * sum is exact: the tokenizer first splits text into pieces by a regular expression, and a
 * piece never continues past a line break that is followed by a non-space character, so no
 * token spans the cut (a test compares both ways of counting).
 */
const cache = new LRUCache<string, number>({ max: 5000 });
const CACHE_MIN_LENGTH = 200;
/** Just after a blank line, where the next paragraph starts with a non-space character. */
const PARAGRAPH_START = /(?<=\n\n)(?=\S)/;

function countParagraph(text: string): number {
  if (text.length < CACHE_MIN_LENGTH) return countWithTokenizer(text);
  const cached = cache.get(text);
  if (cached !== undefined) return cached;
  const count = countWithTokenizer(text);
  cache.set(text, count);
  return count;
}

export function countTokens(text: string): number {
  if (text.length < CACHE_MIN_LENGTH) return countWithTokenizer(text);
  let total = 0;
  for (const paragraph of text.split(PARAGRAPH_START)) total += countParagraph(paragraph);
  return total;
}

/** Tokens of a chat prompt: system text and every message, plus the per-message framing. */
export function countPromptTokens(system: string, messages: readonly ModelMessage[]): number {
  const FRAMING_PER_MESSAGE = 4;
  let total = countTokens(system) + FRAMING_PER_MESSAGE;
  for (const message of messages) total += countTokens(message.content) + FRAMING_PER_MESSAGE;
  return total;
}
