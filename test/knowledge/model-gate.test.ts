import { describe, expect, it } from 'vitest';
import { gatedHits, gateFor } from '../../src/modules/knowledge/answerability.js';
import type { KnowledgeHit } from '../../src/modules/knowledge/search.js';
import { describeApp, type TestApp } from '../helpers/app.js';
import { useFakeModelServer } from '../chat/fixtures.js';
import { sendChat } from '../chat/helpers.js';
import { DROPPED_BY_STRICT_GATE, GATE_MIN_SCORE, gateTenant } from './gate-fixture.js';

/**
 * One gate per kind of model: the offline answerer gets only the hits the answerability decision
 * keeps, a real model every hit at or above the minimum score.
 */

const HAND_OVER_DE = 'Dazu liegen mir leider keine gesicherten Informationen vor.';

const hit = (title: string, score: number) => ({ title, score }) as KnowledgeHit;

describe('gateFor and gatedHits', () => {
  it.each([
    ['offline', 'strict'],
    ['openai', 'threshold'],
    ['anthropic', 'threshold'],
  ])('%s → %s', (provider, gate) => {
    expect(gateFor(provider)).toBe(gate);
  });

  it('gives the strict gate the decision’s hits and the threshold gate every hit at or above the minimum', () => {
    const searched = [hit('a', 0.8), hit('b', 0.4), hit('c', 0.39)];
    const found = { hits: [searched[0]!], searched };
    expect(gatedHits('strict', found, GATE_MIN_SCORE).map((h) => h.title)).toEqual(['a']);
    expect(gatedHits('strict', { hits: [], searched }, GATE_MIN_SCORE)).toEqual([]);
    expect(gatedHits('threshold', { hits: [], searched }, GATE_MIN_SCORE).map((h) => h.title)).toEqual([
      'a',
      'b',
    ]);
  });
});

const setUp = (get: () => TestApp) => gateTenant(get());

describeApp('chat: the offline answerer keeps the strict gate', (get) => {
  it('hands over what the decision turns down, with no hit', async () => {
    const { tenant, bot } = await setUp(get);
    const body = (await sendChat(get(), tenant, bot.id, { message: DROPPED_BY_STRICT_GATE })).json();
    expect(body.knowledge_used).toBe(false);
    expect(body.sources).toEqual([]);
    expect(body.reply).toContain(HAND_OVER_DE);
  });
});

describe.each([
  ['OpenAI-compatible', 'openai'],
  ['Anthropic', 'anthropic'],
] as const)('chat with a %s model', (_name, provider) => {
  describeApp(`chat: a ${provider} model gets every hit above the threshold`, (get) => {
    const server = useFakeModelServer(get, { timeoutMs: 2000, provider });

    function promptText(): string {
      const body = server.requests.at(-1)!.body;
      return JSON.stringify([body.system ?? null, body.messages]);
    }

    it('puts the hit the strict gate would drop into the prompt', async () => {
      const { tenant, bot } = await setUp(get);
      server.queue.push({ kind: 'reply', text: 'Das Probetraining ist jederzeit möglich.' });
      const res = await sendChat(get(), tenant, bot.id, { message: DROPPED_BY_STRICT_GATE });
      expect(res.statusCode).toBe(200);
      const prompt = promptText();
      expect(prompt).toContain('bequeme Kleidung');
      expect(prompt).not.toContain('[KEINE_WISSENSTREFFER]');
      const body = res.json();
      expect(body.knowledge_used).toBe(true);
      expect(body.sources.map((s: { title: string }) => s.title)).toContain('Anmeldung und Probetraining');
    });

    it('still tells the model there are no results when no hit reaches the threshold', async () => {
      const { tenant, bot } = await setUp(get);
      const body = (
        await sendChat(get(), tenant, bot.id, { message: 'Wo kann ich mein Fahrrad abstellen?' })
      ).json();
      expect(body.knowledge_used).toBe(false);
      const prompt = promptText();
      expect(prompt).toContain('[KEINE_WISSENSTREFFER]');
      expect(prompt).not.toContain('bequeme Kleidung');
    });
  });
});
