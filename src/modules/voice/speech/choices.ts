/**
 * An interactive block (`[BUTTONS:…]`/`[LIST:…]`, see flow/engine.ts) on the phone: at most
 * three choices, said as "Sagen Sie Kurs A, Kurs B oder Kurs C – oder drücken Sie 1, 2 oder 3",
 * and the caller's key press or spoken title understood as the choice. Pure.
 */
import { fold, PHRASES } from './phrases.js';
import type { VoiceLanguage } from './numbers.js';

/** How many choices the phone offers at once: more cannot be remembered when heard. */
export const MAX_SPOKEN_CHOICES = 3;

export interface SpokenBlock {
  id: string;
  items: { id: string; title: string }[];
}

/** The block's first three items as the caller hears them. */
export function spokenChoices(block: SpokenBlock, lang: VoiceLanguage): string {
  const items = block.items.slice(0, MAX_SPOKEN_CHOICES);
  if (items.length === 0) return '';
  const digits = items.map((_item, index) => String(index + 1));
  return PHRASES[lang].sayChoices(
    items.map((item) => item.title),
    digits,
  );
}

const ORDINAL_WORDS: readonly (readonly string[])[] = [
  [
    '1',
    'eins',
    'erste',
    'ersten',
    'one',
    'first',
    'un',
    'une',
    'premier',
    'premiere',
    'uno',
    'primo',
    'prima',
  ],
  ['2', 'zwei', 'zwo', 'zweite', 'zweiten', 'two', 'second', 'deux', 'deuxieme', 'due', 'secondo', 'seconda'],
  ['3', 'drei', 'dritte', 'dritten', 'three', 'third', 'trois', 'troisieme', 'tre', 'terzo', 'terza'],
];

/**
 * The item the caller chose: a key 1–3, or the title said (the longest title contained in
 * what was said wins, so "Kurs A am Abend" picks "Kurs A"), or a number word said alone.
 */
export function chosenItem(
  block: SpokenBlock,
  answer: { speech?: string | null; digits?: string | null },
): { blockId: string; itemId: string } | null {
  const items = block.items.slice(0, MAX_SPOKEN_CHOICES);
  const pick = (index: number) => (items[index] ? { blockId: block.id, itemId: items[index].id } : null);
  const digits = answer.digits?.trim() ?? '';
  if (/^[1-9]$/.test(digits)) return pick(Number(digits) - 1);
  const said = fold(answer.speech ?? '');
  if (said === '') return null;
  const padded = ` ${said} `;
  let best: { index: number; length: number } | null = null;
  items.forEach((item, index) => {
    const title = fold(item.title);
    if (title !== '' && padded.includes(` ${title} `) && (!best || title.length > best.length)) {
      best = { index, length: title.length };
    }
  });
  if (best) return pick((best as { index: number }).index);
  const words = said.split(' ');
  if (words.length <= 3) {
    for (const word of words) {
      const index = ORDINAL_WORDS.findIndex((forms) => forms.includes(word));
      if (index >= 0) return pick(index);
    }
  }
  return null;
}
