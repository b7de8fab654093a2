import { expect, it } from 'vitest';
import { seedDemo, type DemoSeed } from '../../src/demo.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { addKnowledge, useFakeModelServer } from './fixtures.js';
import { sendChat } from './helpers.js';
import { GATE_ENTRIES } from '../knowledge/gate-fixture.js';

/**
 * The chat answers from the knowledge base only when the answerability decision says so; a
 * question the entries do not answer behaves as without any knowledge.
 */

const ENTRIES = [
  ...GATE_ENTRIES,
  {
    title: 'Ersatzmesser AS-206',
    content: 'Das Ersatzmesser AS-206 passt für Mähwerke der Serie AS ab Baujahr 2012 und kostet 24,90 €.',
  },
];

const HAND_OVER_DE = 'Dazu liegen mir leider keine gesicherten Informationen vor.';
const HAND_OVER_EN = "I'm sorry, I don't have reliable information on that.";

async function setUp(get: Parameters<Parameters<typeof describeApp>[1]>[0]) {
  const { ctx } = get();
  const tenant = await buildTenant(ctx);
  const bot = await tenant.bot({ system_prompt: 'Du bist der Assistent des Sportstudios.' });
  for (const entry of ENTRIES) await addKnowledge(ctx, tenant.id, bot.id, entry);
  return { tenant, bot };
}

describeApp('chat: answerability with the offline model', (get) => {
  it.each([
    ['Can I bring my dog to the course?', HAND_OVER_EN],
    ['Darf ich meinen Hund mitbringen?', HAND_OVER_DE],
    ['Was kostet das Ersatzmesser AS-310?', HAND_OVER_DE],
    ['What year did Tesla die?', HAND_OVER_EN],
  ])('hands over an unanswerable question: %s', async (message, handOver) => {
    const { tenant, bot } = await setUp(get);
    const res = await sendChat(get(), tenant, bot.id, { message });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.knowledge_used).toBe(false);
    expect(body.sources).toEqual([]);
    expect(body.reply).toContain(handOver);
  });

  it.each([
    ['Was kostet das Ersatzmesser AS-206?', '24,90 €', 'Ersatzmesser AS-206'],
    ['Was kostet der Kurs Rückenfit?', '89,00 €', 'Kurse und Preise'],
    ['Was muss ich zum Probetraining mitbringen?', 'Handtuch', 'Anmeldung und Probetraining'],
  ])('answers an answerable question with its source: %s', async (message, answer, title) => {
    const { tenant, bot } = await setUp(get);
    const body = (await sendChat(get(), tenant, bot.id, { message })).json();
    expect(body.knowledge_used).toBe(true);
    expect(body.reply).toContain(answer);
    expect(body.sources.map((s: { title: string }) => s.title)).toContain(title);
  });
});

describeApp(
  'chat: a hit without an answering sentence',
  (get) => {
    it('is no knowledge used when the offline model hands over all the same', async () => {
      const { ctx } = get();
      const tenant = await buildTenant(ctx);
      const bot = await tenant.bot({ system_prompt: 'Du bist der Assistent des Ersatzteilhandels.' });
      // Both codes are in the entry, so the decision answers; no one sentence holds both.
      await addKnowledge(ctx, tenant.id, bot.id, {
        title: 'Ersatzteile für Mähwerke',
        content:
          'Das Messer AS-206 kostet 24,90 € und ist sofort lieferbar. Die Mähwerke der Serie KX-90 werden seit 2019 nicht mehr gebaut.',
      });
      const message = 'Passt das Messer AS-206 an ein Mähwerk KX-90?';
      const body = (await sendChat(get(), tenant, bot.id, { message })).json();
      expect(body.reply).toContain(HAND_OVER_DE);
      expect(body.knowledge_used).toBe(false);
      expect(body.sources).toEqual([]);
      const stored = await ctx.db.query<{ knowledge_used: boolean }>(
        `SELECT knowledge_used FROM messages WHERE conversation_id = $1 AND role = 'assistant'`,
        [body.conversation_id],
      );
      expect(stored.map((row) => row.knowledge_used)).toEqual([false]);
      // Handed over for a missing answer, as a reply without hits is.
      const [conversation] = await ctx.db.query<{ status: string }>(
        'SELECT status FROM conversations WHERE id = $1',
        [body.conversation_id],
      );
      expect(conversation?.status).toBe('handed_over');
    });
  },
  // Hand-over for a missing answer is on, as in production.
  { env: { HANDOVER_ON_NO_ANSWER: 'true' } },
);

describeApp('chat: the demo tenant hands over what its small knowledge base does not hold', (get) => {
  // The demo's owner has a fixed e-mail address: one demo tenant per database.
  let seeded: Promise<DemoSeed> | undefined;
  const demo = () => (seeded ??= seedDemo(get().ctx));
  it.each([
    ['Can I bring my dog to the course?', HAND_OVER_EN],
    ['Darf ich meinen Hund zum Kurs mitbringen?', HAND_OVER_DE],
  ])('%s', async (message, handOver) => {
    const seed = await demo();
    const keyHeaders = { authorization: `Bearer ${seed.apiKey}` };
    const res = await sendChat(get(), { keyHeaders }, seed.botId, { message });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.knowledge_used).toBe(false);
    expect(body.sources).toEqual([]);
    expect(body.reply).toContain(handOver);
  });

  it.each([
    ['Was kostet eine Zehnerkarte?', '160 Euro', 'Preise'],
    ['Was muss ich zum Probetraining mitbringen?', 'Handtuch', 'Anmeldung und Probetraining'],
    ['Wann ist Yoga?', 'Yoga am Montag und Mittwoch um 18 Uhr', 'Kurse'],
  ])('answers %s from its source', async (message, answer, title) => {
    const seed = await demo();
    const keyHeaders = { authorization: `Bearer ${seed.apiKey}` };
    const body = (await sendChat(get(), { keyHeaders }, seed.botId, { message })).json();
    expect(body.knowledge_used).toBe(true);
    expect(body.reply).toContain(answer);
    expect(body.sources.map((s: { title: string }) => s.title)).toContain(title);
  });
});

describeApp('chat: answerability with a model server', (get) => {
  const server = useFakeModelServer(get, { timeoutMs: 2000 });

  function systemPrompt(): string {
    const messages = server.requests.at(-1)!.body.messages as { role: string; content: string }[];
    return messages[0]!.content;
  }

  it('tells the model there are no results for an unanswerable question', async () => {
    const { tenant, bot } = await setUp(get);
    const body = (
      await sendChat(get(), tenant, bot.id, { message: 'Can I bring my dog to the course?' })
    ).json();
    expect(body.knowledge_used).toBe(false);
    const system = systemPrompt();
    expect(system).toContain('[KEINE_WISSENSTREFFER]');
    expect(system).not.toContain('## Wissenstreffer');
    expect(system).not.toContain('bequeme Kleidung');
  });

  it('gives the model the hit of an answerable question, named by number in the rules', async () => {
    const { tenant, bot } = await setUp(get);
    const body = (
      await sendChat(get(), tenant, bot.id, { message: 'Was kostet das Ersatzmesser AS-206?' })
    ).json();
    expect(body.knowledge_used).toBe(true);
    const system = systemPrompt();
    expect(system).not.toContain('[KEINE_WISSENSTREFFER]');
    expect(system).toContain('24,90 €');
    expect(system).toContain('- Treffer 1 passt am besten');
  });
});
