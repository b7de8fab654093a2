import { describe, expect, it } from 'vitest';
import { describeApp, type TestApp } from '../helpers/app.js';
import type { TenantFixture } from '../helpers/factories.js';
import { DROPPED_BY_STRICT_GATE as QUESTION, gateTenant } from '../knowledge/gate-fixture.js';
import { useFakeModelServer } from './fixtures.js';
import { parseSse, sendChat } from './helpers.js';

/**
 * The no-answer signal of a real model, through the providers' own protocols (a fake
 * OpenAI-compatible and a fake Anthropic server), with and without streaming: the prompt holds
 * every hit at or above the threshold and the instruction to answer only from them; a reply
 * opening with `[NO_ANSWER]` hands over with reason `no_answer`, never shows the marker and is
 * listed under unanswered; an ordinary reply is not handed over.
 */

const NO_ANSWER_TEXT = 'Dazu liegt mir leider keine Information vor.';

/** The customer's view of one turn: the reply text, and every delta when streamed. */
async function ask(t: TestApp, tenant: TenantFixture, botId: string, message: string, stream: boolean) {
  const res = await sendChat(t, tenant, botId, { message }, stream ? { accept: 'text/event-stream' } : {});
  expect(res.statusCode).toBe(200);
  if (!stream) {
    const body = res.json<{ reply: string; conversation_id: string; knowledge_used: boolean }>();
    return { ...body, seen: body.reply };
  }
  const events = parseSse(res.body);
  const deltas = events.filter((e) => e.event === 'delta').map((e) => (e.data as { text: string }).text);
  const done = events.find((e) => e.event === 'done')?.data as {
    reply: string;
    conversation_id: string;
    knowledge_used: boolean;
  };
  expect(done).toBeDefined();
  expect(deltas.join('').trim()).toBe(done.reply);
  return { ...done, seen: res.body };
}

async function inboxState(t: TestApp, tenant: TenantFixture, conversationId: string) {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/inbox/${conversationId}`,
    headers: tenant.owner.headers,
  });
  expect(res.statusCode).toBe(200);
  return res.json<{ state: string; handover_reason: string | null }>();
}

async function unanswered(t: TestApp, tenant: TenantFixture, botId: string) {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/bots/${botId}/unanswered`,
    headers: tenant.owner.headers,
  });
  expect(res.statusCode).toBe(200);
  return res.json<{ data: { question: string; handed_over: number; conversation_ids: string[] }[] }>().data;
}

describe.each([
  ['OpenAI-compatible', 'openai'],
  ['Anthropic', 'anthropic'],
] as const)('the no-answer signal of an %s model', (_name, provider) => {
  describeApp(
    `no answer from a ${provider} model server`,
    (get) => {
      const server = useFakeModelServer(get, { timeoutMs: 2000, provider });

      /** The system prompt and messages as the provider received them. */
      function promptText(): string {
        const body = server.requests.at(-1)!.body;
        return JSON.stringify([body.system ?? null, body.messages]);
      }

      it.each([false, true])(
        'the prompt holds the hit above the threshold and the rule to answer only from it (stream: %s)',
        async (stream) => {
          const t = get();
          const { tenant, bot } = await gateTenant(t);
          server.queue.push({ kind: 'reply', text: 'Eine Sauna gibt es leider nicht.' });
          await ask(t, tenant, bot.id, QUESTION, stream);
          const request = server.requests.at(-1)!;
          expect(request.path).toBe(provider === 'openai' ? '/v1/chat/completions' : '/v1/messages');
          expect(Boolean(request.body.stream)).toBe(stream);
          const prompt = promptText();
          expect(prompt).toContain('bequeme Kleidung und ein Handtuch');
          expect(prompt).not.toContain('[KEINE_WISSENSTREFFER]');
          expect(prompt).toContain('Beantworte die Frage nur mit dem, was in diesen Treffern steht.');
          expect(prompt).toContain('beginne deine Antwort mit [NO_ANSWER]');
        },
      );

      it.each([
        ['whole', false, undefined],
        ['streamed', true, undefined],
        [
          'streamed, the marker split over two deltas',
          true,
          ['[NO_', 'ANSWER] Dazu ', 'liegt mir leider keine Information vor.'],
        ],
        [
          'streamed, the marker split inside its word',
          true,
          ['[', 'NO_ANS', 'WER]', ' Dazu liegt mir leider keine Information vor.'],
        ],
      ] as const)(
        'a reply opening with the marker hands over and is listed as unanswered (%s)',
        async (_how, stream, chunks) => {
          const t = get();
          const { tenant, bot } = await gateTenant(t);
          const text = `[NO_ANSWER] ${NO_ANSWER_TEXT}`;
          server.queue.push({ kind: 'reply', text, ...(chunks ? { chunks: [...chunks] } : {}) });
          const turn = await ask(t, tenant, bot.id, QUESTION, stream);
          expect(turn.reply).toBe(NO_ANSWER_TEXT);
          expect(turn.seen).not.toContain('NO_');
          expect(turn.seen).not.toContain('ANSWER]');
          expect(turn.knowledge_used).toBe(false);
          expect(await inboxState(t, tenant, turn.conversation_id)).toMatchObject({
            state: 'waiting',
            handover_reason: 'no_answer',
          });
          const stored = await t.db.query<{ content: string }>(
            "SELECT content FROM messages WHERE conversation_id = $1 AND role = 'assistant'",
            [turn.conversation_id],
          );
          expect(stored.map((m) => m.content)).toEqual([NO_ANSWER_TEXT]);
          const groups = await unanswered(t, tenant, bot.id);
          expect(groups).toHaveLength(1);
          expect(groups[0]).toMatchObject({
            question: QUESTION,
            handed_over: 1,
            conversation_ids: [turn.conversation_id],
          });
        },
      );

      it.each([false, true])('an ordinary reply is not handed over (stream: %s)', async (stream) => {
        const t = get();
        const { tenant, bot } = await gateTenant(t);
        const text = 'Bitte bringen Sie bequeme Kleidung und ein Handtuch mit.';
        server.queue.push({ kind: 'reply', text });
        const turn = await ask(t, tenant, bot.id, 'Was muss ich zum Probetraining mitbringen?', stream);
        expect(turn.reply).toBe(text);
        expect(turn.knowledge_used).toBe(true);
        const state = await inboxState(t, tenant, turn.conversation_id);
        expect(state.handover_reason).toBeNull();
        expect(state.state).not.toBe('waiting');
        expect(await unanswered(t, tenant, bot.id)).toEqual([]);
      });
    },
    { env: { HANDOVER_ON_NO_ANSWER: 'true' } },
  );
});
