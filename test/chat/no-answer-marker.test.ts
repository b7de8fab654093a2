import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { RecordingModel, useModel } from './fixtures.js';
import { parseSse, sendChat } from './helpers.js';

describeApp(
  'the [NO_ANSWER] marker of a provider',
  (get) => {
    const model = new RecordingModel();
    let restore: () => void;
    beforeAll(() => {
      restore = useModel(get().ctx, model);
      model.answer = async () => ({
        text: '[NO_ANSWER] Dazu liegt mir leider keine Information vor.',
        model: 'recording-model',
        promptTokens: 20,
        completionTokens: 5,
      });
    });
    afterAll(() => restore());
    afterEach(() => {
      model.requests.length = 0;
    });

    it('hands over, counts as unanswered and never shows the marker (JSON and stream)', async () => {
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      const res = await sendChat(get(), tenant, bot.id, { message: 'Habt ihr einen Parkplatz?' });
      expect(res.statusCode).toBe(200);
      const body = res.json<{ reply: string; knowledge_used: boolean; conversation_id: string }>();
      expect(body.reply).toBe('Dazu liegt mir leider keine Information vor.');
      expect(body.knowledge_used).toBe(false);
      const detail = await get().app.inject({
        method: 'GET',
        url: `/api/inbox/${body.conversation_id}`,
        headers: tenant.owner.headers,
      });
      expect(detail.json()).toMatchObject({ state: 'waiting', handover_reason: 'no_answer' });
      const stored = await get().db.query<{ content: string }>(
        "SELECT content FROM messages WHERE conversation_id = $1 AND role = 'assistant'",
        [body.conversation_id],
      );
      expect(stored.map((m) => m.content)).toEqual(['Dazu liegt mir leider keine Information vor.']);
      // The next message of the customer gets no bot reply (the chat API keeps its 409).
      const next = await sendChat(get(), tenant, bot.id, {
        message: 'Hallo?',
        conversation_id: body.conversation_id,
      });
      expect(next.statusCode).toBe(409);

      const streamed = await sendChat(
        get(),
        tenant,
        bot.id,
        { message: 'Und ein Fahrradständer?' },
        { accept: 'text/event-stream' },
      );
      expect(streamed.statusCode).toBe(200);
      expect(streamed.body).not.toContain('NO_ANSWER');
      expect(parseSse(streamed.body).some((e) => e.event === 'done')).toBe(true);
    });
  },
  { env: { HANDOVER_ON_NO_ANSWER: 'true' } },
);
