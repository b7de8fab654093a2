/**
 * Pre-flight warnings for a bot answering on WhatsApp: a block whose choices do not fit
 * WhatsApp's reply buttons or list message (the limits the renderer uses, messaging/render.ts) is
 * sent as a numbered text list instead — never cut. The warning says so, naming the block and
 * the limit, in German and English. Pure.
 */
import type { FlowBlock } from '../flow/index.js';
import { LIMITS } from '../messaging/index.js';

/** The connection kinds whose replies use WhatsApp's interactive limits. */
export const WHATSAPP_CONNECTION_KINDS = ['whatsapp_cloud', 'twilio_whatsapp'] as const;

export type MessagingLimit = 'buttons_count' | 'button_title' | 'list_rows' | 'row_title' | 'row_description';

export interface MessagingWarning {
  blockId: string;
  blockName: string;
  channel: 'whatsapp';
  limit: MessagingLimit;
  /** The item titles over the limit (empty for a count). */
  items: string[];
  message: { de: string; en: string };
}

const len = (s: string) => [...s].length;
const quoted = (titles: string[]) => titles.map((t) => `„${t}“`).join(', ');
const quotedEn = (titles: string[]) => titles.map((t) => `"${t}"`).join(', ');

/** The warnings for the bot's active blocks; every limit a block breaks is listed. */
export function messagingWarnings(blocks: FlowBlock[]): MessagingWarning[] {
  const out: MessagingWarning[] = [];
  const fallbackDe = 'Auf WhatsApp wird er deshalb als nummerierte Textliste gesendet (nichts wird gekürzt).';
  const fallbackEn = 'On WhatsApp it is therefore sent as a numbered text list (nothing is cut).';
  for (const block of blocks) {
    if (!block.isActive || block.items.length === 0) continue;
    const warn = (limit: MessagingLimit, items: string[], de: string, en: string) =>
      out.push({
        blockId: block.id,
        blockName: block.name,
        channel: 'whatsapp',
        limit,
        items,
        message: {
          de: `Block „${block.name}“: ${de} ${fallbackDe}`,
          en: `Block "${block.name}": ${en} ${fallbackEn}`,
        },
      });
    if (block.blockType === 'list') {
      const rows = block.items.length;
      if (rows > LIMITS.listRows)
        warn(
          'list_rows',
          [],
          `${rows} Einträge – eine WhatsApp-Liste hat höchstens ${LIMITS.listRows} Zeilen.`,
          `${rows} rows – a WhatsApp list has at most ${LIMITS.listRows} rows.`,
        );
      const longTitles = block.items.filter((i) => len(i.title) > LIMITS.rowTitle).map((i) => i.title);
      if (longTitles.length > 0)
        warn(
          'row_title',
          longTitles,
          `Titel länger als ${LIMITS.rowTitle} Zeichen: ${quoted(longTitles)}.`,
          `titles longer than ${LIMITS.rowTitle} characters: ${quotedEn(longTitles)}.`,
        );
      const longDescriptions = block.items
        .filter((i) => i.description && len(i.description) > LIMITS.rowDescription)
        .map((i) => i.title);
      if (longDescriptions.length > 0)
        warn(
          'row_description',
          longDescriptions,
          `Beschreibung länger als ${LIMITS.rowDescription} Zeichen bei ${quoted(longDescriptions)}.`,
          `description longer than ${LIMITS.rowDescription} characters at ${quotedEn(longDescriptions)}.`,
        );
      continue;
    }
    const count = block.items.length;
    if (count > LIMITS.buttons)
      warn(
        'buttons_count',
        [],
        `${count} Buttons – WhatsApp zeigt höchstens ${LIMITS.buttons} Antwort-Buttons.`,
        `${count} buttons – WhatsApp shows at most ${LIMITS.buttons} reply buttons.`,
      );
    const longTitles = block.items.filter((i) => len(i.title) > LIMITS.buttonTitle).map((i) => i.title);
    if (longTitles.length > 0)
      warn(
        'button_title',
        longTitles,
        `Button-Titel länger als ${LIMITS.buttonTitle} Zeichen: ${quoted(longTitles)}.`,
        `button titles longer than ${LIMITS.buttonTitle} characters: ${quotedEn(longTitles)}.`,
      );
  }
  return out;
}
