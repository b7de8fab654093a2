/**
 * A bot's reply as messaging-app messages: text, and its `[BUTTONS]` / `[LIST]` block as
 * WhatsApp reply buttons or a list message when it fits WhatsApp's limits, otherwise as a
 * numbered text list whose numbers and titles are understood as the choice. Pure.
 */

export interface BlockItem {
  id: string;
  title: string;
  description: string | null;
}
export interface ReplyBlock {
  id: string;
  type: 'buttons' | 'list';
  name: string;
  items: BlockItem[];
}

/** WhatsApp's limits of interactive messages (Cloud API reference). */
export const LIMITS = {
  buttons: 3,
  buttonTitle: 20,
  buttonId: 256,
  body: 1024,
  listRows: 10,
  rowTitle: 24,
  rowDescription: 72,
  listButton: 20,
} as const;

const len = (s: string) => [...s].length;

/** The id a button or row carries: the block and the item, so a tap is a structured choice. */
export function choiceId(blockId: string, itemId: string): string {
  return `c:${blockId}:${itemId}`;
}

/** A tapped button's or row's id as the choice it stands for; null for an id we did not make. */
export function parseChoiceId(id: string): { blockId: string; itemId: string } | null {
  const m = /^c:([0-9a-f-]{36}):(.+)$/i.exec(id);
  return m ? { blockId: m[1]!, itemId: m[2]! } : null;
}

/** Why a block cannot be shown as WhatsApp's own buttons or list (null: it can). */
export function interactiveMisfit(block: ReplyBlock, body: string): string | null {
  if (block.items.length === 0) return 'no items';
  if (len(body) > LIMITS.body) return `text longer than ${LIMITS.body} characters`;
  if (block.items.some((i) => choiceId(block.id, i.id).length > LIMITS.buttonId)) return 'item id too long';
  if (block.type === 'buttons') {
    if (block.items.length > LIMITS.buttons) return `more than ${LIMITS.buttons} buttons`;
    if (block.items.some((i) => len(i.title) > LIMITS.buttonTitle))
      return `a button title longer than ${LIMITS.buttonTitle} characters`;
    return null;
  }
  if (block.items.length > LIMITS.listRows) return `more than ${LIMITS.listRows} rows`;
  if (block.items.some((i) => len(i.title) > LIMITS.rowTitle))
    return `a row title longer than ${LIMITS.rowTitle} characters`;
  if (block.items.some((i) => i.description && len(i.description) > LIMITS.rowDescription))
    return `a row description longer than ${LIMITS.rowDescription} characters`;
  return null;
}

/** The list button's label in the bot's language. */
export function listButtonLabel(language: string): string {
  return language === 'de' ? 'Auswählen' : language === 'fr' ? 'Choisir' : 'Choose';
}

/** The numbered text list of a block, appended to the reply's text. */
export function numberedList(body: string, block: ReplyBlock, language: string): string {
  const lines = block.items.map(
    (item, i) => `${i + 1}. ${item.title}${item.description ? ` – ${item.description}` : ''}`,
  );
  const hint =
    language === 'de' ? 'Antworten Sie mit der Nummer oder dem Namen.' : 'Reply with the number or the name.';
  return [body.trim(), lines.join('\n'), hint].filter((s) => s).join('\n\n');
}

/** A WhatsApp Cloud API message body without the recipient. */
export type WhatsAppBody = Record<string, unknown>;

/** Cuts text into messages of at most `max` characters (paragraphs, then hard). */
export function chunkText(text: string, max: number): string[] {
  const out: string[] = [];
  let rest = text.trim();
  while (len(rest) > max) {
    const head = [...rest].slice(0, max).join('');
    let at = Math.max(head.lastIndexOf('\n\n'), head.lastIndexOf('. ') + 1);
    if (at < max * 0.3) at = head.lastIndexOf(' ');
    if (at < max * 0.3) at = head.length;
    out.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) out.push(rest);
  return out;
}

/**
 * The WhatsApp messages of a reply: interactive when the block fits, otherwise text (with the
 * numbered list), each text at most 4,096 characters. `numbered` tells whether the choice is to
 * be read from a number or title in the customer's next message.
 */
export function whatsappMessages(
  text: string,
  block: ReplyBlock | null,
  language: string,
): { parts: WhatsAppBody[]; numbered: boolean; misfit: string | null } {
  const body = text.trim();
  if (block) {
    const misfit = interactiveMisfit(block, body || block.name);
    if (!misfit) {
      const shown = body || block.name;
      const interactive =
        block.type === 'buttons'
          ? {
              type: 'button',
              body: { text: shown },
              action: {
                buttons: block.items.map((i) => ({
                  type: 'reply',
                  reply: { id: choiceId(block.id, i.id), title: i.title },
                })),
              },
            }
          : {
              type: 'list',
              body: { text: shown },
              action: {
                button: listButtonLabel(language),
                sections: [
                  {
                    title: [...block.name].slice(0, 24).join('') || listButtonLabel(language),
                    rows: block.items.map((i) => ({
                      id: choiceId(block.id, i.id),
                      title: i.title,
                      ...(i.description ? { description: i.description } : {}),
                    })),
                  },
                ],
              },
            };
      return { parts: [{ type: 'interactive', interactive }], numbered: false, misfit: null };
    }
    const parts = chunkText(numberedList(body, block, language), 4096).map((t) => ({
      type: 'text',
      text: { body: t, preview_url: false },
    }));
    return { parts, numbered: true, misfit };
  }
  const parts = chunkText(body, 4096).map((t) => ({ type: 'text', text: { body: t, preview_url: false } }));
  return { parts, numbered: false, misfit: null };
}

function fold(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * The item a customer's text names in a numbered list: its number ("2", "2.", "Nr. 2") or its
 * title (case and accents ignored). Null when the text names none (or several).
 */
export function choiceFromText(text: string, block: ReplyBlock): BlockItem | null {
  const t = text.trim();
  const number = /^(?:nr\.?\s*|no\.?\s*|#)?(\d{1,2})[.)]?$/i.exec(t);
  if (number) return block.items[Number(number[1]) - 1] ?? null;
  const folded = fold(t);
  if (!folded) return null;
  const exact = block.items.filter((i) => fold(i.title) === folded);
  if (exact.length === 1) return exact[0]!;
  return null;
}
