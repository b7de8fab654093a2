/**
 * A chat response as a plain-text e-mail body: the reply text, at most one interactive block as
 * a numbered list with a line saying how to answer, in the customer's language; and the way
 * back: a numbered (or titled) answer read from the stripped reply as the block's choice,
 * through the flow engine's own option matching. Pure.
 */
import { foldWord, matchChoice, type FlowBlock } from '../flow/index.js';

export type MailLanguage = 'de' | 'en' | 'fr' | 'it';

/** A block as the chat response carries it. */
export interface ReplyBlock {
  id: string;
  name: string;
  items: readonly { id: string; title: string; description?: string | null }[];
}

const HOW_TO_ANSWER: Record<MailLanguage, { formal: string; informal: string }> = {
  de: {
    formal: 'Bitte antworten Sie mit der Nummer Ihrer Wahl.',
    informal: 'Bitte antworte mit der Nummer deiner Wahl.',
  },
  en: {
    formal: 'Please reply with the number of your choice.',
    informal: 'Please reply with the number of your choice.',
  },
  fr: {
    formal: 'Veuillez répondre avec le numéro de votre choix.',
    informal: 'Réponds avec le numéro de ton choix.',
  },
  it: {
    formal: 'La preghiamo di rispondere con il numero della sua scelta.',
    informal: 'Rispondi con il numero della tua scelta.',
  },
};

/** The language of a mail's reply: one of the four, German when unknown. */
export function mailLanguage(code: string | null | undefined): MailLanguage {
  const base = (code ?? '').toLowerCase().slice(0, 2);
  return base === 'en' || base === 'fr' || base === 'it' ? base : 'de';
}

/** Wraps a paragraph's lines at about 76 characters (plain-text mail), never inside a word. */
function wrap(text: string, width = 76): string {
  return text
    .split('\n')
    .map((line) => {
      if (line.length <= width) return line;
      const out: string[] = [];
      let current = '';
      for (const word of line.split(/ +/)) {
        if (current !== '' && current.length + 1 + word.length > width) {
          out.push(current);
          current = word;
        } else current = current === '' ? word : `${current} ${word}`;
      }
      if (current !== '') out.push(current);
      return out.join('\n');
    })
    .join('\n');
}

/**
 * The plain-text body of a bot reply. Markdown emphasis and links are flattened ("[text](url)"
 * → "text (url)"); only the first block is shown (e-mail has no buttons), as "1. Title – description".
 */
export function renderMailReply(input: {
  reply: string;
  blocks?: readonly ReplyBlock[] | null;
  language?: string | null;
  formal?: boolean;
}): string {
  const language = mailLanguage(input.language);
  const text = input.reply
    .replace(/\r\n?/g, '\n')
    .replace(/\[([^\]]+)\]\((\S+?)\)/g, (_m, label: string, url: string) =>
      label === url ? url : `${label} (${url})`,
    )
    .replace(/\*\*([^*\n]+)\*\*/g, '$1')
    .replace(/__([^_\n]+)__/g, '$1')
    .replace(/^#{1,6}\s+/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const parts = [wrap(text)];
  const block = input.blocks?.[0];
  if (block && block.items.length > 0) {
    const list = block.items.map((item, index) => {
      const description = item.description?.trim();
      return `${index + 1}. ${item.title}${description ? ` – ${description}` : ''}`;
    });
    parts.push(list.join('\n'));
    parts.push(HOW_TO_ANSWER[language][input.formal === false ? 'informal' : 'formal']);
  }
  return `${parts.filter((p) => p !== '').join('\n\n')}\n`;
}

/** Words before a number that still mean "number n": "Nr. 2", "Option 2", "#2", "Punkt 2", "choix 2". */
const NUMBER_LEAD =
  /^(?:nr\.?|nummer|no\.?|number|num[eé]ro|numero|n[°º]\.?|option|opzione|punkt|auswahl|choice|choix|scelta|#)\s*/i;

/**
 * The item of the block a stripped mail reply chooses: its first non-empty line is the answer
 * ("2", "2.", "Nr. 2", "Option 2", or an item's title), matched by the flow engine's
 * matchChoice. Undefined when the reply is no choice (then it is an ordinary message).
 */
export function parseMailChoice(
  block: ReplyBlock,
  strippedText: string,
): ReplyBlock['items'][number] | undefined {
  const first = strippedText
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (!first) return undefined;
  const answer = first
    .replace(NUMBER_LEAD, '')
    .replace(/^(\d{1,2})\s*[.):]?(\s.*)?$/, (m, n: string, rest?: string) => {
      // "2. Beratung" (number and title): the number decides when the title agrees or is absent.
      if (!rest) return n;
      const item = block.items[Number(n) - 1];
      return item && foldWord(rest.trim()).startsWith(foldWord(item.title.trim()).slice(0, 3)) ? n : m;
    });
  const asFlowBlock = {
    id: block.id,
    items: block.items.map((i) => ({ id: i.id, title: i.title })),
  } as unknown as FlowBlock;
  const item = matchChoice(asFlowBlock, { text: answer });
  return item ? block.items.find((i) => i.id === item.id) : undefined;
}
