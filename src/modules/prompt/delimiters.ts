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

/** A value inside a double-quoted attribute of a delimiter tag. */
export function escapeAttribute(text: string): string {
  return escapeText(text)
    .replaceAll('"', '&quot;')
    .replace(/[\r\n]+/g, ' ');
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
