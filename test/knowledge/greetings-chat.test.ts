import { expect, it } from 'vitest';
import { seedDemo, type DemoSeed } from '../../src/demo.js';
import { describeApp } from '../helpers/app.js';
import { sendChat } from '../chat/helpers.js';

/**
 * A greeting, thanks or sign-off around a question changes nothing: the chat endpoint answers it
 * from the knowledge base as it answers the bare question, and stores the message whole.
 */

const HAND_OVER_DE = 'Dazu liegen mir leider keine gesicherten Informationen vor.';

describeApp('chat: greetings and sign-offs never decide', (get) => {
  // The demo's owner has a fixed e-mail address: one demo tenant per database.
  let seeded: Promise<DemoSeed> | undefined;
  const demo = () => (seeded ??= seedDemo(get().ctx));

  it.each([
    'wann ist Pilates?',
    'wann ist Pilates?\n\nLiebe Grüße',
    'wann ist Pilates?\n\nViele Grüße\nAnna Keller',
    'Hallo! Wann ist Pilates? Danke, LG Tom',
    'Guten Tag,\n\nwann ist Pilates?\n\nDanke im Voraus!\n\nMit freundlichen Grüßen\nDr. Jan Weber\n\nVon meinem iPhone gesendet',
    'Bonjour,\nwann ist Pilates?\nCordialement\nMarie Dupont',
    'wann ist Pilates?\nCordiali saluti\nLuca Rossi',
    'Hi, wann ist Pilates?\nBest regards,\nMary Smith',
  ])('answers %j from the knowledge base', async (message) => {
    const seed = await demo();
    const keyHeaders = { authorization: `Bearer ${seed.apiKey}` };
    const res = await sendChat(get(), { keyHeaders }, seed.botId, { message });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.knowledge_used).toBe(true);
    expect(body.reply).toContain('Pilates am Dienstag um 19 Uhr');
    expect(body.reply).not.toContain(HAND_OVER_DE);
    expect(body.sources.map((s: { title: string }) => s.title)).toContain('Kurse');
    // The message is stored as it was written.
    const [stored] = await get().ctx.db.query<{ content: string }>(
      `SELECT content FROM messages WHERE conversation_id = $1 AND role = 'user'`,
      [body.conversation_id],
    );
    expect(stored?.content).toBe(message);
  });

  it.each(['Darf ich meinen Hund zum Kurs mitbringen?\n\nLiebe Grüße\nAnna Keller', 'Hallo!\n\nLiebe Grüße'])(
    'still hands over %j',
    async (message) => {
      const seed = await demo();
      const keyHeaders = { authorization: `Bearer ${seed.apiKey}` };
      const body = (await sendChat(get(), { keyHeaders }, seed.botId, { message })).json();
      expect(body.knowledge_used).toBe(false);
      expect(body.reply).toContain(HAND_OVER_DE);
    },
  );
});
