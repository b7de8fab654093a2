/**
 * Delimiters of the prompt and the neutralisation of text placed between them. Untrusted text
 * (user messages, chat history, knowledge entries) has every `<` and `>` escaped, so it cannot
 * contain a tag at all: it can neither close the delimiter it sits in nor open a new one.
 */

export const TAG = {
  system: 'system_instructions',
  botPrompt: 'bot_prompt',
  knowledge: 'knowledge_base',
  entry: 'entry',
  user: 'user_message',
  checkpoint: 'checkpoint',
} as const;

const RESERVED = Object.values(TAG);

/** Text as the model should read it: `&`, `<`, `>` escaped, so tags are plain text. */
export function escapeText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** Line breaks of every kind (CR, LF, NEL, LS, PS, VT, FF) and the other control characters. */
const LINE_BREAKS_AND_CONTROLS = /[\p{Cc}\u2028\u2029]+/gu;

/**
 * An untrusted value written into a line of the prompt: a knowledge title, a tag, an event
 * title or place, a block name or item, a vocabulary term. Escaped like escapeText; every line
 * break and control character becomes one space, so the value cannot start a line of its own
 * (no `## heading`, no list item, no rule); square brackets become parentheses, so it cannot
 * write one of the `[BOOK:…]`, `[LIST:…]` or `[BUTTONS:…]` tags the prompt tells the model to use.
 * Every untrusted value in a line of the prompt goes through this one function.
 */
export function inlineText(text: string): string {
  return escapeText(text)
    .replace(LINE_BREAKS_AND_CONTROLS, ' ')
    .replaceAll('[', '(')
    .replaceAll(']', ')')
    .trim();
}

/** A value inside a double-quoted attribute of a delimiter tag. */
export function escapeAttribute(text: string): string {
  return inlineText(text).replaceAll('"', '&quot;');
}

const RESERVED_TAG = new RegExp(`<(\\s*/?\\s*)(${RESERVED.join('|')})(?=[\\s>/]|$)`, 'gi');

/**
 * For semi-trusted text (the tenant's bot prompt, sections added by other modules): other
 * markup stays as written, but the service's own delimiter tags are escaped so the text cannot
 * end the layer it belongs to.
 */
export function neutraliseReservedTags(text: string): string {
  return text.replace(RESERVED_TAG, (_match, slash: string, name: string) => `&lt;${slash}${name}`);
}

export function wrap(tag: string, body: string, attributes = ''): string {
  return `<${tag}${attributes ? ` ${attributes}` : ''}>\n${body}\n</${tag}>`;
}
