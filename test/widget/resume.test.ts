import { expect, it } from 'vitest';
import { parseSse } from '../chat/helpers.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { send, startSession, widgetBot } from './helpers.js';

const ITEMS = [
  { id: 'yoga', title: 'Yoga', description: 'Montags 18 Uhr' },
  { id: 'team', title: 'Mit dem Team sprechen' },
];

/** The id lines of a server-sent events body, one per event (undefined where none). */
function eventIds(body: string): (string | undefined)[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => /^id: (.*)$/m.exec(block)?.[1]);
}

describeApp('widget: stream ids, resume with Last-Event-ID, blocks in the transcript', (get) => {
  it('stream events carry message ids to resume from; the events stream resumes after the anchor', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const { publishableKey } = await widgetBot(t, tenant);
    const session = await startSession(t, publishableKey);
    const stream = { accept: 'text/event-stream' };

    const first = await send(t, session, { text: 'Hallo' }, stream);
    expect(first.statusCode).toBe(200);
    const firstEvents = parseSse(first.body);
    const done = firstEvents.find((e) => e.event === 'done')!.data as { message_id: string; reply: string };
    const ids = eventIds(first.body);
    // A new conversation: the deltas have no anchor; done names the stored reply.
    expect(ids.slice(0, -1).every((id) => id === undefined)).toBe(true);
    expect(ids.at(-1)).toBe(done.message_id);

    const transcript = await t.app.inject({ url: '/v1/widget/conversation', headers: session.headers });
    const messages = transcript.json().messages as { id: string; from: string }[];
    expect(messages.map((m) => m.from)).toEqual(['visitor', 'bot']);
    expect(messages[1]!.id).toBe(done.message_id);

    const second = await send(t, session, { text: 'Noch eine Frage' }, stream);
    const secondIds = eventIds(second.body);
    const secondDone = parseSse(second.body).find((e) => e.event === 'done')!.data as { message_id: string };
    // Deltas name the last message before the exchange: the first reply.
    expect(secondIds.slice(0, -1).every((id) => id === done.message_id)).toBe(true);
    expect(secondIds.at(-1)).toBe(secondDone.message_id);

    // A client that lost the second stream resumes from the deltas' id on the events stream.
    const controller = new AbortController();
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const res = await fetch(`${address}/v1/widget/events`, {
        headers: { ...session.headers, 'last-event-id': done.message_id },
        signal: controller.signal,
      });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      let text = '';
      while (!text.includes(secondDone.message_id)) {
        const { value } = await reader.read();
        text += new TextDecoder().decode(value);
      }
      const resumed = parseSse(text).filter((e) => e.event === 'message' && e.data !== null);
      expect(resumed.map((e) => (e.data as { from: string }).from)).toEqual(['visitor', 'bot']);
      expect((resumed[1]!.data as { id: string }).id).toBe(secondDone.message_id);
    } finally {
      controller.abort();
    }
  });

  it('the transcript carries each bot reply’s blocks; a reply without blocks has none', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const { botId, publishableKey } = await widgetBot(t, tenant);
    const block = await t.app.inject({
      method: 'POST',
      url: `/api/bots/${botId}/blocks`,
      headers: tenant.owner.headers,
      payload: {
        name: 'Kurse',
        block_type: 'buttons',
        items: ITEMS,
        trigger_mode: 'keyword',
        step_config: { keywords: ['Kurs'] },
      },
    });
    expect(block.statusCode, block.body).toBe(201);
    const blockId = block.json().block.id as string;
    const session = await startSession(t, publishableKey);
    const plain = await send(t, session, { text: 'Guten Tag' });
    expect(plain.json().blocks).toEqual([]);
    const shown = await send(t, session, { text: 'Welche Kurse gibt es?' });
    expect(shown.json().blocks.map((b: { id: string }) => b.id)).toEqual([blockId]);

    const transcript = await t.app.inject({ url: '/v1/widget/conversation', headers: session.headers });
    const messages = transcript.json().messages as {
      from: string;
      blocks?: { id: string; items: unknown[] }[];
    }[];
    expect(messages.map((m) => m.from)).toEqual(['visitor', 'bot', 'visitor', 'bot']);
    expect(messages[1]).not.toHaveProperty('blocks');
    expect(messages[0]).not.toHaveProperty('blocks');
    expect(messages[3]!.blocks).toEqual(shown.json().blocks);

    // The dashboard's export shows them too.
    const exported = await t.app.inject({
      url: `/api/bots/${botId}/widget/visitors/${session.visitor_id}/export`,
      headers: tenant.owner.headers,
    });
    expect(exported.json().conversations[0].messages[3].blocks[0].id).toBe(blockId);
  });
});
