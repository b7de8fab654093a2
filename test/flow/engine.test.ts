import { describe, expect, it } from 'vitest';
import {
  INITIAL_FLOW_STATE,
  conditionsHold,
  decideAfter,
  decideBefore,
  matchChoice,
  matchesKeyword,
  type Flow,
  type FlowDecision,
  type FlowState,
} from '../../src/modules/flow/engine.js';
import type { BlockCondition, FlowBlock, FlowStep } from '../../src/modules/flow/model.js';

const S = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const B = (n: number) => `b0000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const formal = { formal: true };

function block(fields: Partial<FlowBlock> = {}): FlowBlock {
  return {
    id: B(1),
    name: 'Kurse',
    blockType: 'buttons',
    items: [
      { id: 'yoga', title: 'Yoga' },
      { id: 'pilates', title: 'Pilates', description: 'Rücken stärken' },
      { id: 'team', title: 'Mit dem Team sprechen' },
    ],
    isActive: true,
    triggerMode: 'flow',
    optionActions: {},
    stepConfig: {},
    exits: {},
    ...fields,
  };
}

function step(n: number, fields: Partial<FlowStep> = {}): FlowStep {
  return {
    id: S(n),
    stepOrder: n,
    stepType: 'message',
    label: `Schritt ${n}`,
    icon: null,
    blockId: null,
    ...fields,
  };
}

const answer = (d: FlowDecision) => (d.kind === 'answer' ? d : undefined);

describe('keywords as words', () => {
  const cases: Array<[message: string, keyword: string, matches: boolean]> = [
    ['Ich suche einen Kurs', 'Kurs', true],
    ['Welche Kurse gibt es?', 'Kurs', true],
    ['In welchen Kursen ist noch Platz?', 'kurs', true],
    ['Gibt es einen Yogakurs am Abend?', 'Kurs', true],
    ['Habt ihr Tanzkurse?', 'Kurs', true],
    ['Wo finde ich das Kursangebot?', 'Kurs', true],
    ['Wann sind die Kurszeiten?', 'Kurs', true],
    ['KÜRSE bitte', 'kurs', true],
    ['Ein Diskurs über Philosophie', 'Kurs', false],
    ['Der Kurswechsel', 'Preis', false],
    ['Do you offer courses?', 'course', true],
    ['I would like a class', 'class', true],
    ['Any classes tomorrow?', 'class', true],
    ['Show me the categories', 'category', true],
    ['I am booking for two', 'book', true],
    ['What does it cost?', 'price', false],
    ['Termin buchen bitte', 'Termin buchen', true],
    ['Ich will einen Termin', 'Termin buchen', false],
    ['Straße', 'strasse', true],
    ['', 'Kurs', false],
  ];
  it.each(cases)('%j with keyword %j → %s', (message, keyword, matches) => {
    expect(matchesKeyword(message, keyword)).toBe(matches);
  });
});

describe('choosing an option', () => {
  const b = block();
  const cases: Array<[name: string, message: Parameters<typeof matchChoice>[1], item: string | undefined]> = [
    ['structured choice', { text: 'egal', choice: { blockId: B(1), itemId: 'pilates' } }, 'pilates'],
    [
      'structured choice of another block',
      { text: 'x', choice: { blockId: B(2), itemId: 'yoga' } },
      undefined,
    ],
    [
      'structured choice of an unknown item',
      { text: 'x', choice: { blockId: B(1), itemId: 'zumba' } },
      undefined,
    ],
    ['title typed', { text: 'Yoga' }, 'yoga'],
    ['title in other case with a full stop', { text: ' pilates. ' }, 'pilates'],
    ['number', { text: '2' }, 'pilates'],
    ['number with a full stop', { text: '3.' }, 'team'],
    ['number out of range', { text: '9' }, undefined],
    ['free text', { text: 'Ich hätte gern Yoga am Abend' }, undefined],
  ];
  it.each(cases)('%s', (_name, message, item) => {
    expect(matchChoice(b, message)?.id).toBe(item);
  });
});

describe('conditions on answers', () => {
  const answers = { kurs: 'yoga', name: 'Ada Lovelace' };
  const cases: Array<[BlockCondition[], boolean]> = [
    [[], true],
    [[{ field: 'kurs', operator: 'equals', value: 'YOGA' }], true],
    [[{ field: 'kurs', operator: 'equals', value: 'pilates' }], false],
    [[{ field: 'kurs', operator: 'not_equals', value: 'pilates' }], true],
    [[{ field: 'missing', operator: 'not_equals', value: 'x' }], true],
    [[{ field: 'name', operator: 'contains', value: 'love' }], true],
    [[{ field: 'name', operator: 'exists' }], true],
    [[{ field: 'missing', operator: 'exists' }], false],
    [
      [
        { field: 'kurs', operator: 'equals', value: 'yoga' },
        { field: 'missing', operator: 'exists' },
      ],
      false,
    ],
  ];
  it.each(cases)('%j → %s', (conditions, holds) => {
    expect(conditionsHold(conditions, answers)).toBe(holds);
  });
});

describe('decideBefore', () => {
  const started: FlowState = { ...INITIAL_FLOW_STATE, started: true };
  const awaiting = (blockId: string, stepId: string | null): FlowState => ({
    ...started,
    stepId,
    blockId,
    awaiting: 'choice',
  });

  it('a keyword block fires on its keyword without a model call', () => {
    const flow: Flow = {
      blocks: [block({ triggerMode: 'keyword', stepConfig: { keywords: ['Kurs'] } })],
      steps: [],
    };
    const d = answer(decideBefore(flow, INITIAL_FLOW_STATE, { text: 'Habt ihr Yogakurse?' }, formal));
    expect(d?.block?.id).toBe(B(1));
    expect(d?.reply).toBe('Bitte wählen Sie:');
    expect(d?.state).toMatchObject({ awaiting: 'choice', blockId: B(1), stepId: null });
    expect(decideBefore(flow, INITIAL_FLOW_STATE, { text: 'Was kostet das?' }, formal).kind).toBe('model');
  });

  it('keyword, flow and auto blocks: only the keyword block fires on a keyword', () => {
    const flow: Flow = {
      blocks: [
        block({ id: B(1), triggerMode: 'auto', stepConfig: { keywords: ['Kurs'] } }),
        block({ id: B(2), name: 'F', triggerMode: 'flow', stepConfig: { keywords: ['Kurs'] } }),
        block({
          id: B(3),
          name: 'K',
          triggerMode: 'keyword',
          isActive: false,
          stepConfig: { keywords: ['Kurs'] },
        }),
      ],
      steps: [],
    };
    expect(decideBefore(flow, started, { text: 'Kurs' }, formal).kind).toBe('model');
  });

  it('a new conversation runs the flow from its first step: messages, then the block', () => {
    const flow: Flow = {
      blocks: [block()],
      steps: [
        step(1, { content: 'Willkommen im Studio!' }),
        step(2, { stepType: 'block', blockId: B(1), content: 'Welcher Kurs interessiert Sie?' }),
        step(3, { content: 'Danke!' }),
      ],
    };
    const d = answer(decideBefore(flow, INITIAL_FLOW_STATE, { text: 'Hallo' }, formal));
    expect(d?.reply).toBe('Willkommen im Studio!\n\nWelcher Kurs interessiert Sie?');
    expect(d?.block?.id).toBe(B(1));
    expect(d?.state).toMatchObject({ started: true, stepId: S(2), awaiting: 'choice' });
    // A started flow does not start again.
    expect(decideBefore(flow, { ...started, ended: true }, { text: 'Hallo' }, formal).kind).toBe('model');
  });

  const actions: Array<{
    name: string;
    fields: Partial<FlowBlock>;
    message: Parameters<typeof decideBefore>[2];
    reply?: string;
    handover?: boolean;
    state: Partial<FlowState>;
    model?: boolean;
  }> = [
    {
      name: 'goto_step jumps to its step (by id)',
      fields: { optionActions: { yoga: { action: 'goto_step', step_id: S(4) } } },
      message: { text: 'x', choice: { blockId: B(1), itemId: 'yoga' } },
      reply: 'Schritt vier',
      state: { ended: true, answers: { Kurse: 'yoga' } },
    },
    {
      name: 'reply sends its fixed text, then the flow goes on linearly (by title)',
      fields: { optionActions: { pilates: { action: 'reply', text: 'Pilates ist dienstags.' } } },
      message: { text: 'Pilates' },
      reply: 'Pilates ist dienstags.\n\nSchritt drei\n\nSchritt vier',
      state: { ended: true, awaiting: null },
    },
    {
      name: 'handover hands the conversation over (by number)',
      fields: { optionActions: { team: { action: 'handover' } } },
      message: { text: '3' },
      reply: 'Ich gebe Ihr Anliegen an einen Mitarbeiter weiter. Sie erhalten hier eine Antwort.',
      handover: true,
      state: { ended: true },
    },
    {
      name: 'the default exit is followed when the conditions hold',
      fields: {
        exits: { default: S(4) },
        stepConfig: { conditions: [{ field: 'Kurse', operator: 'equals', value: 'yoga' }] },
      },
      message: { text: 'Yoga' },
      reply: 'Schritt vier',
      state: { ended: true },
    },
    {
      name: 'failing conditions continue linearly',
      fields: {
        exits: { default: S(4) },
        stepConfig: { conditions: [{ field: 'Kurse', operator: 'equals', value: 'yoga' }] },
      },
      message: { text: 'Pilates' },
      reply: 'Schritt drei\n\nSchritt vier',
      state: { ended: true },
    },
    {
      name: 'exit end ends the flow; the model answers the choice',
      fields: { exits: { default: 'end' } },
      message: { text: 'Yoga' },
      model: true,
      state: { ended: true, answers: { Kurse: 'yoga' } },
    },
    {
      name: 'named exit keys are not followed',
      fields: { exits: { yoga_exit: S(4) } },
      message: { text: 'Yoga' },
      reply: 'Schritt drei\n\nSchritt vier',
      state: { ended: true },
    },
  ];
  it.each(actions)('$name', ({ fields, message, reply, handover, state, model }) => {
    const flow: Flow = {
      blocks: [block(fields)],
      steps: [
        step(1, { content: 'Hallo' }),
        step(2, { stepType: 'block', blockId: B(1) }),
        step(3, { content: 'Schritt drei' }),
        step(4, { content: 'Schritt vier' }),
      ],
    };
    const d = decideBefore(flow, awaiting(B(1), S(2)), message, formal);
    if (model) {
      expect(d.kind).toBe('model');
    } else {
      expect(d).toMatchObject({ kind: 'answer', reply, handover: handover ?? false, block: null });
    }
    expect(d.state).toMatchObject(state);
  });

  it('free text while a choice is pending goes to the model and keeps the block pending', () => {
    const flow: Flow = { blocks: [block()], steps: [step(1, { stepType: 'block', blockId: B(1) })] };
    const state = awaiting(B(1), S(1));
    const d = decideBefore(flow, state, { text: 'Wie teuer ist das?' }, formal);
    expect(d).toEqual({ kind: 'model', state });
  });

  it('an input step asks its question and collects the answer into its field', () => {
    const flow: Flow = {
      blocks: [],
      steps: [
        step(1, { stepType: 'input', content: 'Wie heißen Sie?', fieldName: 'name' }),
        step(2, { content: 'Danke!' }),
        step(3, { stepType: 'handover', content: 'Eine Kollegin meldet sich.' }),
      ],
    };
    const asked = answer(decideBefore(flow, INITIAL_FLOW_STATE, { text: 'Hallo' }, formal));
    expect(asked?.reply).toBe('Wie heißen Sie?');
    expect(asked?.state).toMatchObject({ awaiting: 'input', stepId: S(1) });
    const d = answer(decideBefore(flow, asked!.state, { text: '  Ada Lovelace ' }, formal));
    expect(d).toMatchObject({ reply: 'Danke!\n\nEine Kollegin meldet sich.', handover: true });
    expect(d?.state).toMatchObject({ answers: { name: 'Ada Lovelace' }, ended: true, awaiting: null });
  });

  it('an input step without a field name collects into its label', () => {
    const flow: Flow = { blocks: [], steps: [step(1, { stepType: 'input', label: 'Telefon' })] };
    const d = decideBefore(
      flow,
      { ...started, awaiting: 'input', stepId: S(1) },
      { text: '0301234' },
      formal,
    );
    expect(d).toEqual({ kind: 'model', state: expect.objectContaining({ answers: { Telefon: '0301234' } }) });
  });

  it('a drawn cycle runs each step at most once per turn', () => {
    const flow: Flow = {
      blocks: [block({ items: [], exits: { default: S(1) } })],
      steps: [step(1, { content: 'Eins' }), step(2, { content: 'Zwei', blockId: B(1) })],
    };
    const d = answer(decideBefore(flow, INITIAL_FLOW_STATE, { text: 'Hallo' }, formal));
    expect(d?.reply).toBe('Eins\n\nZwei');
    expect(d?.state.ended).toBe(true);
  });

  it('a block with items but no routing stops the flow, as the pre-flight draws it', () => {
    const flow: Flow = {
      blocks: [block({ triggerMode: null })],
      steps: [step(1, { stepType: 'block', blockId: B(1) }), step(2, { content: 'nie erreicht' })],
    };
    const shown = answer(decideBefore(flow, INITIAL_FLOW_STATE, { text: 'Hallo' }, { formal: false }));
    expect(shown?.reply).toBe('Bitte wähle:');
    const d = decideBefore(flow, shown!.state, { text: 'Yoga' }, formal);
    expect(d).toMatchObject({ kind: 'model', state: { ended: true, answers: { Kurse: 'yoga' } } });
  });

  it('a structured choice of a block that is not pending still applies', () => {
    const flow: Flow = {
      blocks: [block({ optionActions: { yoga: { action: 'reply', text: 'Yoga ist montags.' } } })],
      steps: [],
    };
    const d = answer(
      decideBefore(flow, started, { text: 'Yoga', choice: { blockId: B(1), itemId: 'yoga' } }, formal),
    );
    expect(d?.reply).toBe('Yoga ist montags.');
  });

  it('a goto_step to a deleted step ends the flow', () => {
    const flow: Flow = {
      blocks: [block({ optionActions: { yoga: { action: 'goto_step', step_id: S(99) } } })],
      steps: [step(1, { stepType: 'block', blockId: B(1) })],
    };
    const d = decideBefore(flow, awaiting(B(1), S(1)), { text: 'Yoga' }, formal);
    expect(d).toMatchObject({ kind: 'model', state: { ended: true } });
  });
});

describe('decideAfter', () => {
  const flow: Flow = {
    blocks: [block({ triggerMode: 'auto' }), block({ id: B(2), name: 'Aus', isActive: false })],
    steps: [],
  };
  const cases: Array<[reply: string, cleaned: string, blockId: string | null]> = [
    ['Gern! [BUTTONS:Kurse]', 'Gern!', B(1)],
    ['Wählen Sie:\n[LIST: kurse]\nDanke.', 'Wählen Sie:\n\nDanke.', B(1)],
    ['[BUTTONS:Unbekannt] Hallo', 'Hallo', null],
    ['[BUTTONS:Aus] Hallo', 'Hallo', null],
    ['Kein Tag hier.', 'Kein Tag hier.', null],
    ['Wir öffnen um 9 Uhr [LIST:Zeiten].', 'Wir öffnen um 9 Uhr.', null],
    ['Gern [BUTTONS:Kurse]!', 'Gern!', B(1)],
    ['[BUTTONS:Kurse]', 'Bitte wählen Sie:', B(1)],
  ];
  it.each(cases)('%j → %j', (reply, cleaned, blockId) => {
    const d = decideAfter(flow, INITIAL_FLOW_STATE, reply, formal);
    expect(d.reply).toBe(cleaned);
    expect(d.block?.id ?? null).toBe(blockId);
    if (blockId) expect(d.state).toMatchObject({ awaiting: 'choice', blockId });
  });
});
