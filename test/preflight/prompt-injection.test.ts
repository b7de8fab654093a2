import { describe, expect, it } from 'vitest';
import type { FlowBlock } from '../../src/modules/flow/model.js';
import { blockTag, buildPromptInjection } from '../../src/modules/preflight/prompt-injection.js';

function block(fields: Partial<FlowBlock>): FlowBlock {
  return {
    id: 'b',
    name: 'Termin',
    blockType: 'buttons',
    items: [],
    isActive: true,
    triggerMode: 'auto',
    optionActions: {},
    stepConfig: {},
    exits: {},
    ...fields,
  };
}

describe('buildPromptInjection', () => {
  it('lists every active block with its items, the tag syntax and the no-invention rule', () => {
    const result = buildPromptInjection(
      [
        block({
          name: 'Terminart',
          items: [
            { id: 'b', title: 'Beratung', description: '30 Minuten' },
            { id: 'r', title: 'Reparatur' },
          ],
        }),
        block({ name: 'Filiale', blockType: 'list', items: [{ id: 'm', title: 'München' }] }),
        block({ name: 'Versteckt', isActive: false, items: [{ id: 'x', title: 'Geheim' }] }),
        block({ name: 'Leer', items: [] }),
      ],
      'Du bist der Assistent der Werkstatt.',
    );
    expect(result.blockCount).toBe(2);
    expect(result.section).toContain('[BUTTONS:Terminart]');
    expect(result.section).toContain('- Beratung: 30 Minuten');
    expect(result.section).toContain('- Reparatur');
    expect(result.section).toContain('[LIST:Filiale]');
    expect(result.section).toContain('- München');
    expect(result.section).not.toContain('Geheim');
    expect(result.section).not.toContain('Leer');
    expect(result.section).toContain('Erfinde keine eigenen [LIST]- oder [BUTTONS]-Tags');
    expect(result.section).toContain('höchstens einen Block pro Nachricht');
    expect(result.combinedPrompt).toBe(`Du bist der Assistent der Werkstatt.\n\n${result.section}`);
  });

  it('tells the model to use no tags when no block offers a choice', () => {
    const result = buildPromptInjection([block({ items: [] })], '');
    expect(result.blockCount).toBe(0);
    expect(result.section).toContain('keine interaktiven Blöcke');
    expect(result.section).toContain('Erfinde keine eigenen [LIST]- oder [BUTTONS]-Tags');
    expect(result.combinedPrompt).toBe(result.section);
  });

  it.each([
    ['buttons', 'Ja/Nein', '[BUTTONS:Ja/Nein]'],
    ['list', 'Orte', '[LIST:Orte]'],
  ])('tags a %s block as %s', (blockType, name, tag) => {
    expect(blockTag({ blockType, name })).toBe(tag);
  });
});
