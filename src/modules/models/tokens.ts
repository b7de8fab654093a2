import { countTokens as countWithTokenizer } from 'gpt-tokenizer';
import { LRUCache } from 'lru-cache';
import type { ModelMessage } from './provider.js';

/*
 * Token counts use the o200k_base BPE tokenizer (GPT-4o family). Other models tokenize a
 * little differently, so this is the figure for providers that report no usage themselves.
 * System prompts repeat across requests of a bot: their counts are cached.
 */
const cache = new LRUCache<string, number>({ max: 2000 });
const CACHE_MIN_LENGTH = 200;

export function countTokens(text: string): number {
  if (text.length < CACHE_MIN_LENGTH) return countWithTokenizer(text);
  const cached = cache.get(text);
  if (cached !== undefined) return cached;
  const count = countWithTokenizer(text);
  cache.set(text, count);
  return count;
}

/** Tokens of a chat prompt: system text and every message, plus the per-message framing. */
export function countPromptTokens(system: string, messages: readonly ModelMessage[]): number {
  const FRAMING_PER_MESSAGE = 4;
  let total = countTokens(system) + FRAMING_PER_MESSAGE;
  for (const message of messages) total += countTokens(message.content) + FRAMING_PER_MESSAGE;
  return total;
}
