/**
 * The system-prompt section that tells the model which interactive blocks exist and how to
 * show one. Pure: the same blocks always give the same text.
 */
import { inlineText } from '../prompt/index.js';
import type { FlowBlock } from '../flow/index.js';

export interface PromptInjection {
  /** The section to append to the bot's prompt. */
  section: string;
  /** Number of blocks listed in the section. */
  blockCount: number;
  /** The bot's current system_prompt followed by the section: what the inject endpoint expects. */
  combinedPrompt: string;
}

const TAG: Record<string, string> = { buttons: 'BUTTONS', list: 'LIST' };
const TYPE_LABEL: Record<string, string> = { buttons: 'Buttons', list: 'Liste' };

export function blockTag(block: Pick<FlowBlock, 'blockType' | 'name'>): string {
  return `[${TAG[block.blockType] ?? 'BUTTONS'}:${inlineText(block.name)}]`;
}

export function buildPromptInjection(blocks: readonly FlowBlock[], systemPrompt: string): PromptInjection {
  // A block without items offers nothing to choose; listing it would invite an empty list.
  const offered = blocks.filter((b) => b.isActive && b.items.length > 0);
  const lines: string[] = ['## Interaktive Auswahl-Blöcke', ''];
  if (offered.length === 0) {
    lines.push(
      'Für diesen Bot sind keine interaktiven Blöcke definiert. Antworte nur mit Text.',
      'Erfinde keine eigenen [LIST]- oder [BUTTONS]-Tags.',
    );
  } else {
    lines.push(
      'Du kannst dem Nutzer die folgenden vordefinierten Auswahlmöglichkeiten anbieten. ' +
        'Es gibt nur diese Blöcke und nur diese Einträge:',
      '',
    );
    for (const block of offered) {
      lines.push(
        `### ${inlineText(block.name)} (${inlineText(TYPE_LABEL[block.blockType] ?? block.blockType)}) – Tag: ${blockTag(block)}`,
      );
      for (const item of block.items) {
        const title = inlineText(item.title);
        lines.push(item.description ? `- ${title}: ${inlineText(item.description)}` : `- ${title}`);
      }
      lines.push('');
    }
    lines.push(
      'Syntax: Um einen Block anzuzeigen, schreibe seinen Tag genau wie oben angegeben in eine eigene ' +
        'Zeile am Ende deiner Antwort, zum Beispiel:',
      blockTag(offered[0]!),
      'Das System ersetzt den Tag durch die Auswahl mit den oben aufgeführten Einträgen; ' +
        'wiederhole die Einträge nicht selbst im Text.',
      'Verwende höchstens einen Block pro Nachricht und nur dann, wenn er zur Frage des Nutzers passt.',
      'Erfinde keine eigenen [LIST]- oder [BUTTONS]-Tags und keine Einträge, die oben nicht aufgeführt sind.',
    );
  }
  const section = lines.join('\n').trimEnd();
  const base = systemPrompt.trimEnd();
  return {
    section,
    blockCount: offered.length,
    combinedPrompt: base === '' ? section : `${base}\n\n${section}`,
  };
}
