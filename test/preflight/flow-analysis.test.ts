import { describe, expect, it } from 'vitest';
import {
  analyseFlow,
  analysePreflight,
  checkBlock,
  type BlockStatus,
} from '../../src/modules/flow/analysis.js';
import type { FlowBlock, FlowStep } from '../../src/modules/flow/model.js';

const S = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const MISSING = '99999999-0000-4000-8000-000000000000';

function block(fields: Partial<FlowBlock> = {}): FlowBlock {
  return {
    id: 'b0000000-0000-4000-8000-000000000001',
    name: 'Auswahl',
    blockType: 'buttons',
    items: [
      { id: 'yes', title: 'Ja' },
      { id: 'no', title: 'Nein' },
    ],
    isActive: true,
    triggerMode: 'auto',
    optionActions: {},
    stepConfig: { conditions: [{ field: 'topic', operator: 'exists' }] },
    exits: {},
    ...fields,
  };
}

function steps(count: number, blockAt: Record<number, string> = {}): FlowStep[] {
  return Array.from({ length: count }, (_, i) => ({
    id: S(i + 1),
    stepOrder: i + 1,
    stepType: 'message',
    label: `Schritt ${i + 1}`,
    icon: null,
    blockId: blockAt[i + 1] ?? null,
  }));
}

const ALL_STEPS = new Set([S(1), S(2), S(3)]);

describe('checkBlock colour rules', () => {
  const cases: Array<{ name: string; block: FlowBlock; status: BlockStatus; issues?: string[] }> = [
    { name: 'routing by trigger_mode, conditions set, no targets', block: block(), status: 'green' },
    {
      name: 'routing only by option_actions, conditions set, valid goto',
      block: block({ triggerMode: null, optionActions: { yes: { action: 'goto_step', step_id: S(2) } } }),
      status: 'green',
    },
    {
      name: 'block without items and without routing',
      block: block({ items: [], triggerMode: null, stepConfig: {} }),
      status: 'green',
    },
    {
      name: 'block without items and with broken targets',
      block: block({ items: [], exits: { weiter: MISSING } }),
      status: 'green',
      issues: ['missing_exit_target', 'untriggered_exit_key'],
    },
    {
      name: 'only the default exit key, to a step and conditions set',
      block: block({ exits: { default: S(3) } }),
      status: 'green',
    },
    { name: 'default exit to end', block: block({ exits: { default: 'end' } }), status: 'green' },
    {
      name: 'routing ok, conditions missing',
      block: block({ stepConfig: {} }),
      status: 'orange',
    },
    {
      name: 'routing ok, conditions is an empty array',
      block: block({ stepConfig: { conditions: [] } }),
      status: 'orange',
    },
    {
      name: 'an exit key other than default',
      block: block({ exits: { default: S(2), bestaetigt: S(3) } }),
      status: 'orange',
      issues: ['untriggered_exit_key'],
    },
    {
      name: 'exit to a missing step',
      block: block({ exits: { default: MISSING } }),
      status: 'orange',
      issues: ['missing_exit_target'],
    },
    {
      name: 'goto_step to a missing step',
      block: block({ optionActions: { yes: { action: 'goto_step', step_id: MISSING } } }),
      status: 'orange',
      issues: ['missing_goto_target'],
    },
    { name: 'no trigger_mode and no option_actions', block: block({ triggerMode: null }), status: 'red' },
    {
      name: 'no routing outweighs every other problem',
      block: block({ triggerMode: null, stepConfig: {}, exits: { x: MISSING } }),
      status: 'red',
      issues: ['missing_exit_target', 'untriggered_exit_key'],
    },
  ];

  it.each(cases)('$name → $status', ({ block: b, status, issues }) => {
    const result = checkBlock(b, ALL_STEPS);
    expect(result.status).toBe(status);
    expect(result.targets.issues.map((i) => i.kind)).toEqual(issues ?? []);
    expect(result.targets.valid).toBe((issues ?? []).length === 0);
    expect(result.detail.length).toBeGreaterThan(10);
    if (status === 'green') expect(result.recommendation).toBeNull();
    else expect(result.recommendation).toMatch(/\S/);
  });

  it('reports routing method, conditions and item count', () => {
    expect(checkBlock(block({ triggerMode: 'keyword' }), ALL_STEPS)).toMatchObject({
      itemCount: 2,
      routing: { ok: true, method: 'trigger_mode:keyword' },
      conditions: { set: true, count: 1 },
    });
    const byActions = checkBlock(
      block({ triggerMode: null, optionActions: { no: { action: 'handover' } } }),
      ALL_STEPS,
    );
    expect(byActions.routing).toEqual({ ok: true, method: 'trigger_mode:option_actions' });
    expect(checkBlock(block({ triggerMode: null }), ALL_STEPS).routing).toEqual({
      ok: false,
      method: 'trigger_mode:none',
    });
  });

  it('explains problems in German', () => {
    const red = checkBlock(block({ triggerMode: null }), ALL_STEPS);
    expect(red.detail).toContain('Kein Routing');
    expect(red.recommendation).toContain('trigger_mode');
    const orange = checkBlock(block({ stepConfig: {}, exits: { weiter: S(2) } }), ALL_STEPS);
    expect(orange.detail).toContain('Keine Bedingungen');
    expect(orange.detail).toContain('„weiter“');
    expect(orange.targets.issues[0]!.message).toContain('nur der Exit „default“');
  });
});

describe('analysePreflight', () => {
  it('counts only active blocks and lets only red block activation', () => {
    const blocks = [
      block({ id: 'g', name: 'g' }),
      block({ id: 'o', name: 'o', stepConfig: {} }),
      block({ id: 'r', name: 'r', triggerMode: null, isActive: false }),
    ];
    const result = analysePreflight(blocks, steps(2));
    expect(result.summary).toEqual({ total: 2, green: 1, orange: 1, red: 0 });
    expect(result.canActivate).toBe(true);
    expect(result.blocks.map((b) => b.blockId)).toEqual(['g', 'o']);

    const withRed = analysePreflight(
      [...blocks, block({ id: 'r2', name: 'r2', triggerMode: null })],
      steps(2),
    );
    expect(withRed.summary).toEqual({ total: 3, green: 1, orange: 1, red: 1 });
    expect(withRed.canActivate).toBe(false);
  });

  it('can activate a bot without any blocks or steps', () => {
    const result = analysePreflight([], []);
    expect(result).toMatchObject({
      canActivate: true,
      summary: { total: 0, green: 0, orange: 0, red: 0 },
      flowAnalysis: { steps: [], edges: [], unreachableSteps: [], deadEnds: [] },
    });
  });
});

describe('analyseFlow', () => {
  const B = 'b0000000-0000-4000-8000-000000000001';

  it('links steps linearly by step_order, whatever order they come in', () => {
    const flow = analyseFlow([], steps(3).reverse());
    expect(flow.steps.map((s) => s.stepOrder)).toEqual([1, 2, 3]);
    expect(flow.edges).toEqual([
      { from: 1, to: 2, type: 'linear' },
      { from: 2, to: 3, type: 'linear' },
    ]);
    expect(flow.unreachableSteps).toEqual([]);
    expect(flow.deadEnds).toEqual([]);
    expect(flow.steps[0]).toEqual({
      stepId: S(1),
      stepOrder: 1,
      stepType: 'message',
      label: 'Schritt 1',
      icon: null,
      blockId: null,
    });
  });

  const cases: Array<{
    name: string;
    block: Partial<FlowBlock>;
    count: number;
    blockAt: number;
    edges: Array<{ from: number; to: number | 'end'; type: string; via?: string }>;
    unreachable: number[];
    deadEnds: number[];
  }> = [
    {
      name: 'default exit to a later step replaces the linear edge and skips a step',
      block: { stepConfig: {}, exits: { default: S(3) } },
      count: 3,
      blockAt: 1,
      edges: [
        { from: 1, to: 3, type: 'exit', via: 'default' },
        { from: 2, to: 3, type: 'linear' },
      ],
      unreachable: [2],
      deadEnds: [],
    },
    {
      name: 'exit to end is an end, not a dead end; later steps become unreachable',
      block: { stepConfig: {}, exits: { default: 'end' } },
      count: 3,
      blockAt: 1,
      edges: [
        { from: 1, to: 'end', type: 'exit', via: 'default' },
        { from: 2, to: 3, type: 'linear' },
      ],
      unreachable: [2, 3],
      deadEnds: [],
    },
    {
      name: 'a named exit key is a condition edge next to the linear one',
      block: { exits: { bestaetigt: S(3) } },
      count: 3,
      blockAt: 1,
      edges: [
        { from: 1, to: 3, type: 'condition', via: 'bestaetigt' },
        { from: 1, to: 2, type: 'linear' },
        { from: 2, to: 3, type: 'linear' },
      ],
      unreachable: [],
      deadEnds: [],
    },
    {
      name: 'a named exit key to end is an exit edge',
      block: { exits: { abbrechen: 'end' } },
      count: 2,
      blockAt: 1,
      edges: [
        { from: 1, to: 'end', type: 'exit', via: 'abbrechen' },
        { from: 1, to: 2, type: 'linear' },
      ],
      unreachable: [],
      deadEnds: [],
    },
    {
      name: 'goto_step option actions are condition edges',
      block: { optionActions: { yes: { action: 'goto_step', step_id: S(3) }, no: { action: 'handover' } } },
      count: 3,
      blockAt: 1,
      edges: [
        { from: 1, to: 3, type: 'condition', via: 'yes' },
        { from: 1, to: 2, type: 'linear' },
        { from: 2, to: 3, type: 'linear' },
      ],
      unreachable: [],
      deadEnds: [],
    },
    {
      name: 'a default exit under conditions keeps the linear edge for when they fail',
      block: { exits: { default: S(3) } },
      count: 3,
      blockAt: 1,
      edges: [
        { from: 1, to: 3, type: 'exit', via: 'default' },
        { from: 1, to: 2, type: 'linear' },
        { from: 2, to: 3, type: 'linear' },
      ],
      unreachable: [],
      deadEnds: [],
    },
    {
      name: 'default exit to a missing step leaves a dead end and unreachable steps',
      block: { stepConfig: {}, exits: { default: MISSING } },
      count: 3,
      blockAt: 1,
      edges: [{ from: 2, to: 3, type: 'linear' }],
      unreachable: [2, 3],
      deadEnds: [1],
    },
    {
      name: 'goto to a missing step draws no edge',
      block: { optionActions: { yes: { action: 'goto_step', step_id: MISSING } } },
      count: 2,
      blockAt: 1,
      edges: [{ from: 1, to: 2, type: 'linear' }],
      unreachable: [],
      deadEnds: [],
    },
    {
      name: 'a block with items but no routing stops the flow',
      block: { triggerMode: null },
      count: 3,
      blockAt: 2,
      edges: [{ from: 1, to: 2, type: 'linear' }],
      unreachable: [3],
      deadEnds: [2],
    },
    {
      name: 'the last step never counts as a dead end',
      block: { triggerMode: null },
      count: 2,
      blockAt: 2,
      edges: [{ from: 1, to: 2, type: 'linear' }],
      unreachable: [],
      deadEnds: [],
    },
    {
      name: 'a cycle back to an earlier step terminates and reaches everything',
      block: { exits: { default: S(1) } },
      count: 3,
      blockAt: 3,
      edges: [
        { from: 1, to: 2, type: 'linear' },
        { from: 2, to: 3, type: 'linear' },
        { from: 3, to: 1, type: 'exit', via: 'default' },
      ],
      unreachable: [],
      deadEnds: [],
    },
    {
      name: 'a self-loop on the first step leaves the rest unreachable',
      block: { stepConfig: {}, exits: { default: S(1) } },
      count: 3,
      blockAt: 1,
      edges: [
        { from: 1, to: 1, type: 'exit', via: 'default' },
        { from: 2, to: 3, type: 'linear' },
      ],
      unreachable: [2, 3],
      deadEnds: [],
    },
    {
      name: 'the first step never counts as unreachable, even with nothing pointing at it',
      block: {},
      count: 1,
      blockAt: 1,
      edges: [],
      unreachable: [],
      deadEnds: [],
    },
  ];

  it.each(cases)('$name', ({ block: fields, count, blockAt, edges, unreachable, deadEnds }) => {
    const flow = analyseFlow([block({ id: B, ...fields })], steps(count, { [blockAt]: B }));
    expect(flow.edges).toEqual(edges);
    expect(flow.unreachableSteps).toEqual(unreachable);
    expect(flow.deadEnds).toEqual(deadEnds);
  });

  it('finds an island cycle that the first step never enters', () => {
    const jumpTo4 = 'b0000000-0000-4000-8000-000000000002';
    const back = 'b0000000-0000-4000-8000-000000000003';
    const flow = analyseFlow(
      [
        block({ id: B, name: 'end', stepConfig: {}, exits: { default: 'end' } }),
        block({ id: back, name: 'back', stepConfig: {}, exits: { default: S(2) } }),
        block({ id: jumpTo4, name: 'x' }),
      ],
      steps(3, { 1: B, 3: back }),
    );
    // 1 ends; 2 → 3 → 2 loop among themselves without an entry.
    expect(flow.edges).toEqual([
      { from: 1, to: 'end', type: 'exit', via: 'default' },
      { from: 2, to: 3, type: 'linear' },
      { from: 3, to: 2, type: 'exit', via: 'default' },
    ]);
    expect(flow.unreachableSteps).toEqual([2, 3]);
    expect(flow.deadEnds).toEqual([]);
  });

  it('ignores the block of a step when the block is inactive', () => {
    const flow = analyseFlow(
      [block({ id: B, isActive: false, exits: { default: 'end' } })],
      steps(2, { 1: B }),
    );
    expect(flow.edges).toEqual([{ from: 1, to: 2, type: 'linear' }]);
  });

  it('is pure: the same input gives the same output and is not changed', () => {
    const input = steps(3, { 2: B });
    const blocks = [block({ id: B, exits: { default: S(1) } })];
    const snapshot = JSON.stringify([input, blocks]);
    expect(analysePreflight(blocks, input)).toEqual(analysePreflight(blocks, input));
    expect(JSON.stringify([input, blocks])).toBe(snapshot);
  });
});
