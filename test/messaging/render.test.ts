import { describe, expect, it } from 'vitest';
import {
  choiceFromText,
  choiceId,
  interactiveMisfit,
  parseChoiceId,
  whatsappMessages,
  type ReplyBlock,
} from '../../src/modules/messaging/render.js';

const BLOCK = '11111111-2222-4333-8444-555555555555';
const items = (n: number, title = (i: number) => `Option ${i + 1}`, description: string | null = null) =>
  Array.from({ length: n }, (_, i) => ({ id: `item-${i}`, title: title(i), description }));
const block = (
  type: 'buttons' | 'list',
  n: number,
  title?: (i: number) => string,
  description?: string | null,
) => ({ id: BLOCK, type, name: 'Termine', items: items(n, title, description ?? null) }) satisfies ReplyBlock;

describe('blocks within WhatsApp’s limits', () => {
  it.each([
    ['buttons', 1, undefined, undefined, null],
    ['buttons', 3, undefined, undefined, null],
    ['buttons', 4, undefined, undefined, 'more than 3 buttons'],
    ['buttons', 2, () => 'x'.repeat(20), undefined, null],
    ['buttons', 2, () => 'x'.repeat(21), undefined, 'a button title longer than 20 characters'],
    ['list', 10, undefined, undefined, null],
    ['list', 11, undefined, undefined, 'more than 10 rows'],
    ['list', 3, () => 'y'.repeat(24), undefined, null],
    ['list', 3, () => 'y'.repeat(25), undefined, 'a row title longer than 24 characters'],
    ['list', 3, undefined, 'd'.repeat(72), null],
    ['list', 3, undefined, 'd'.repeat(73), 'a row description longer than 72 characters'],
  ] as const)('%s with %i items → %s', (type, n, title, description, misfit) => {
    expect(interactiveMisfit(block(type, n, title, description), 'Text')).toBe(misfit);
  });

  it('refuses a body longer than 1,024 characters for interactive messages', () => {
    expect(interactiveMisfit(block('buttons', 2), 'z'.repeat(1025))).toMatch(/1024/);
  });

  it('renders reply buttons with ids that carry the choice', () => {
    const out = whatsappMessages('Welcher Termin?', block('buttons', 2), 'de');
    expect(out.numbered).toBe(false);
    expect(out.parts).toEqual([
      {
        type: 'interactive',
        interactive: {
          type: 'button',
          body: { text: 'Welcher Termin?' },
          action: {
            buttons: [
              { type: 'reply', reply: { id: choiceId(BLOCK, 'item-0'), title: 'Option 1' } },
              { type: 'reply', reply: { id: choiceId(BLOCK, 'item-1'), title: 'Option 2' } },
            ],
          },
        },
      },
    ]);
    expect(parseChoiceId(choiceId(BLOCK, 'item-1'))).toEqual({ blockId: BLOCK, itemId: 'item-1' });
    expect(parseChoiceId('something else')).toBeNull();
  });

  it('renders a list with the button label in the bot’s language', () => {
    const out = whatsappMessages('Bitte wählen', block('list', 5), 'de');
    const interactive = (
      out.parts[0] as { interactive: { action: { button: string; sections: { rows: unknown[] }[] } } }
    ).interactive;
    expect(interactive.action.button).toBe('Auswählen');
    expect(interactive.action.sections[0]!.rows).toHaveLength(5);
  });

  it('falls back to a numbered text list, never truncating', () => {
    const long = block('buttons', 5, (i) => `Sehr lange Option Nummer ${i + 1}`);
    const out = whatsappMessages('Welche?', long, 'de');
    expect(out.numbered).toBe(true);
    expect(out.misfit).toBe('more than 3 buttons');
    const text = (out.parts[0] as { text: { body: string } }).text.body;
    for (const [i, item] of long.items.entries()) expect(text).toContain(`${i + 1}. ${item.title}`);
  });

  it('splits plain text over 4,096 characters into several messages', () => {
    const out = whatsappMessages('Wort '.repeat(1000), null, 'de');
    expect(out.parts.length).toBe(2);
    for (const p of out.parts)
      expect([...(p as { text: { body: string } }).text.body].length).toBeLessThanOrEqual(4096);
  });
});

describe('a numbered list’s answer as the choice', () => {
  const b = {
    id: BLOCK,
    type: 'list' as const,
    name: 'x',
    items: items(4, (i) => ['Café Müller', 'Bäckerei', 'Kino', 'Zoo'][i]!),
  };
  it.each([
    ['2', 'item-1'],
    ['2.', 'item-1'],
    [' 3) ', 'item-2'],
    ['Nr. 4', 'item-3'],
    ['#1', 'item-0'],
    ['cafe muller', 'item-0'],
    ['KINO', 'item-2'],
    ['5', null],
    ['0', null],
    ['Ich möchte ins Kino', null],
    ['', null],
  ])('%j → %s', (text, id) => expect(choiceFromText(text, b)?.id ?? null).toBe(id));
});
