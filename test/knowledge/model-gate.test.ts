import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { createModelProvider } from '../../src/modules/models/index.js';
import { gatedHits, gateFor } from '../../src/modules/knowledge/answerability.js';
import { searchForAnswer } from '../../src/modules/knowledge/service.js';
import type { KnowledgeHit } from '../../src/modules/knowledge/search.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { addKnowledge, useModel } from '../chat/fixtures.js';
import { FakeModelServer } from '../chat/fake-model-server.js';
import { sendChat } from '../chat/helpers.js';

/**
 * One gate per kind of model: the offline answerer gets only the hits the answerability decision
 * keeps, a real model every hit at or above the minimum score.
 */

const ENTRIES = [
  {
    title: 'Anmeldung und Probetraining',
    content:
      'Ein Probetraining ist kostenlos und jederzeit möglich. Bitte bringen Sie bequeme Kleidung und ein Handtuch mit. Die Anmeldung erfolgt online oder am Empfang.',
  },
  {
    title: 'Kurse und Preise',
    content:
      'Der Kurs Rückenfit kostet 89,00 € für zehn Termine. Der Kurs findet dienstags um 18 Uhr im Saal 2 statt.',
  },
];
/** A hit scores above the threshold, but the strict decision does not let it answer. */
const DROPPED_BY_STRICT_GATE = 'Gibt es eine Sauna beim Probetraining?';
const HAND_OVER_DE = 'Dazu liegen mir leider keine gesicherten Informationen vor.';
const MIN_SCORE = 0.4;

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
    expect(gatedHits('strict', found, MIN_SCORE).map((h) => h.title)).toEqual(['a']);
    expect(gatedHits('strict', { hits: [], searched }, MIN_SCORE)).toEqual([]);
    expect(gatedHits('threshold', { hits: [], searched }, MIN_SCORE).map((h) => h.title)).toEqual(['a', 'b']);
  });
});

async function setUp(get: Parameters<Parameters<typeof describeApp>[1]>[0]) {
  const { ctx } = get();
  const tenant = await buildTenant(ctx);
  const bot = await tenant.bot({ system_prompt: 'Du bist der Assistent des Sportstudios.' });
  for (const entry of ENTRIES) await addKnowledge(ctx, tenant.id, bot.id, entry);
  // The premise: the strict decision says no, although a hit passes the threshold.
  const found = await searchForAnswer(ctx.db, tenant.id, {
    botId: bot.id,
    query: DROPPED_BY_STRICT_GATE,
    limit: 3,
    minScore: MIN_SCORE,
  });
  expect(found.decision.answer).toBe(false);
  expect(found.searched[0]!.score).toBeGreaterThanOrEqual(MIN_SCORE);
  return { tenant, bot };
}

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
    const server = new FakeModelServer();
    let restore: () => void;
    beforeAll(async () => {
      await server.start();
      const config = testConfig({
        MODEL_PROVIDER: provider,
        MODEL_NAME: 'parley-test-model',
        ...(provider === 'openai'
          ? { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: 'sk-test-provider-key' }
          : { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-test-provider-key' }),
        MODEL_TIMEOUT_MS: '2000',
      });
      restore = useModel(get().ctx, createModelProvider(config.model));
    });
    afterAll(async () => {
      restore();
      await server.stop();
    });
    beforeEach(() => {
      server.requests.length = 0;
      server.queue = [];
    });

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
