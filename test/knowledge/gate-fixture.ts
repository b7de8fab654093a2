import { expect } from 'vitest';
import { searchForAnswer } from '../../src/modules/knowledge/service.js';
import type { TestApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { addKnowledge } from '../chat/fixtures.js';

/**
 * A sports studio's knowledge base and a question whose hit scores at or above the threshold
 * but which the strict answerability decision turns down: the offline answerer hands it over, a
 * real model (threshold gate) is given the hit.
 */
export const GATE_ENTRIES = [
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
export const DROPPED_BY_STRICT_GATE = 'Gibt es eine Sauna beim Probetraining?';
export const GATE_MIN_SCORE = 0.4;

/** A tenant with a bot holding GATE_ENTRIES; checks the premise of DROPPED_BY_STRICT_GATE. */
export async function gateTenant(t: Pick<TestApp, 'ctx'>) {
  const { ctx } = t;
  const tenant = await buildTenant(ctx);
  const bot = await tenant.bot({ system_prompt: 'Du bist der Assistent des Sportstudios.' });
  for (const entry of GATE_ENTRIES) await addKnowledge(ctx, tenant.id, bot.id, entry);
  const found = await searchForAnswer(ctx.db, tenant.id, {
    botId: bot.id,
    query: DROPPED_BY_STRICT_GATE,
    limit: 3,
    minScore: GATE_MIN_SCORE,
  });
  expect(found.decision.answer).toBe(false);
  expect(found.searched[0]!.score).toBeGreaterThanOrEqual(GATE_MIN_SCORE);
  return { tenant, bot };
}
