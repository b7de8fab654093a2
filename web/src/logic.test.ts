import { beforeAll, describe, expect, it } from 'vitest';
import i18n, { loadTexts } from './i18n';
import { ApiError, errorText } from './api/client';
import { refusedActivation } from './features/bots/activation';
import { parseSse } from './features/chat/sse';
import { capacityShares } from './features/events/capacity';
import { flowGraph, END_NODE } from './features/flow/graph';
import { safeNext } from './features/auth/LoginPage';
import { splitAtThreshold } from './features/knowledge/HitTest';
import { quotaPercent } from './features/overview/overview';
import { sideBySide } from './features/prompt/side-by-side';
import { formatMoney, formatNumber } from './format';

describe('errorText', () => {
  beforeAll(async () => {
    await i18n.changeLanguage('de');
    await loadTexts();
  });
  it('words the code of an API error or a chat text in the user language, else the fallback', () => {
    expect(
      errorText({ error: 'conflict', code: 'prompt_version_current', message: 'Version is current' }, 'x'),
    ).toEqual({
      code: 'prompt_version_current',
      message: 'Die aktuelle Version kann nicht gelöscht werden. Stellen Sie zuerst eine andere wieder her.',
    });
    expect(errorText({ error: 'Bot deaktiviert' }, 'x')).toEqual({
      code: 'Bot deaktiviert',
      message: 'Bot deaktiviert',
    });
    expect(errorText('<html>', '502 Bad Gateway')).toEqual({ code: 'error', message: '502 Bad Gateway' });
  });
});

describe('refusedActivation', () => {
  it('lists the red blocks of a 409', () => {
    const error = new ApiError(409, 'conflict', 'cannot activate', {
      details: { red_blocks: [{ blockId: 'b1', blockName: 'Termine', detail: 'no routing' }] },
    });
    expect(refusedActivation(error)).toEqual([{ blockId: 'b1', blockName: 'Termine', check: null }]);
  });
  it('is null for other errors', () => {
    expect(refusedActivation(new ApiError(400, 'validation_error', 'x', {}))).toBeNull();
    expect(refusedActivation(new Error('x'))).toBeNull();
  });
});

describe('parseSse', () => {
  it('splits complete events and keeps the rest', () => {
    const { events, rest } = parseSse(
      'event: delta\ndata: {"text":"Hal"}\n\nevent: delta\ndata: {"text":"lo"}\n\nevent: do',
    );
    expect(events).toEqual([
      { event: 'delta', data: '{"text":"Hal"}' },
      { event: 'delta', data: '{"text":"lo"}' },
    ]);
    expect(rest).toBe('event: do');
  });
});

describe('sideBySide', () => {
  it('pairs a removed block with the added block that replaced it', () => {
    const rows = sideBySide([
      { type: 'unchanged', lines: ['a'] },
      { type: 'removed', lines: ['b'] },
      { type: 'added', lines: ['B', 'C'] },
      { type: 'removed', lines: ['d'] },
    ]);
    expect(rows).toEqual([
      { left: { text: 'a', type: 'unchanged' }, right: { text: 'a', type: 'unchanged' } },
      { left: { text: 'b', type: 'removed' }, right: { text: 'B', type: 'added' } },
      { left: null, right: { text: 'C', type: 'added' } },
      { left: { text: 'd', type: 'removed' }, right: null },
    ]);
  });
});

describe('capacityShares', () => {
  it('splits confirmed, pending and free places', () => {
    expect(capacityShares(4, 3, 1)).toEqual({ confirmed: 50, pending: 25, free: 25, freePlaces: 1 });
    expect(capacityShares(2, 2, 0)).toEqual({ confirmed: 100, pending: 0, free: 0, freePlaces: 0 });
    expect(capacityShares(0, 0, 0).freePlaces).toBe(0);
  });
});

describe('flowGraph', () => {
  it('draws steps, END and edges, marking unreachable steps and dead ends', () => {
    const graph = flowGraph(
      {
        steps: [
          { stepId: 's1', stepOrder: 1, stepType: 'message', label: 'Hallo', icon: null, blockId: null },
          { stepId: 's2', stepOrder: 2, stepType: 'block', label: 'Auswahl', icon: null, blockId: 'b1' },
          { stepId: 's3', stepOrder: 3, stepType: 'message', label: 'Waise', icon: null, blockId: null },
        ],
        edges: [
          { from: 1, to: 2, type: 'linear' },
          { from: 2, to: 'end', type: 'exit', via: 'default' },
        ],
        unreachableSteps: [3],
        deadEnds: [],
      } as never,
      [{ blockId: 'b1', status: 'red' }] as never,
    );
    expect(graph.nodes.map((n) => n.id)).toEqual(['1', '2', '3', END_NODE]);
    expect(graph.nodes[1]!.data.blockStatus).toBe('red');
    expect(graph.nodes[2]!.data.state).toBe('unreachable');
    expect(graph.edges[1]).toMatchObject({ source: '2', target: END_NODE, label: 'default' });
  });
});

describe('small decisions', () => {
  it('safeNext keeps only paths inside the app', () => {
    expect(safeNext('/bots/1')).toBe('/bots/1');
    expect(safeNext('//evil.example')).toBe('/');
    expect(safeNext('https://evil.example')).toBe('/');
    expect(safeNext(null)).toBe('/');
  });
  it('splitAtThreshold puts hits on either side of the line', () => {
    const parts = splitAtThreshold([{ score: 0.9 }, { score: 0.4 }, { score: 0.39 }], 0.4);
    expect(parts.above).toHaveLength(2);
    expect(parts.below).toEqual([{ score: 0.39 }]);
  });
  it('quotaPercent is null for unlimited plans and capped at 100', () => {
    expect(quotaPercent({ messages_used: 5, messages_quota: null })).toBeNull();
    expect(quotaPercent({ messages_used: 50, messages_quota: 200 })).toBe(25);
    expect(quotaPercent({ messages_used: 500, messages_quota: 200 })).toBe(100);
  });
  it('formats numbers and money per language', () => {
    expect(formatNumber(12345.5, 'de')).toBe('12.345,5');
    expect(formatNumber(12345.5, 'en')).toBe('12,345.5');
    expect(formatMoney(12.5, 'EUR', 'de')).toMatch(/12,50\s€/);
    expect(formatMoney(12.5, 'EUR', 'en')).toBe('€12.50');
  });
});
