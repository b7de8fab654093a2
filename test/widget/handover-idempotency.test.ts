import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { RecordingModel, useModel } from '../chat/fixtures.js';
import { send, startSession, widgetBot } from './helpers.js';

describeApp('widget messages: hand-over and Idempotency-Key', (get) => {
  const model = new RecordingModel();
  let restore: () => void;
  beforeAll(() => {
    restore = useModel(get().ctx, model);
  });
  afterAll(() => restore());
  afterEach(() => {
    model.requests.length = 0;
  });

  const countMessages = async (conversationId: string, content: string) =>
    (
      await get().db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM messages WHERE conversation_id = $1 AND content = $2',
        [conversationId, content],
      )
    )[0]!.n;

  it('a message during a hand-over is stored once (202), shown in the inbox, the bot silent; after give-back the bot answers', async () => {
    const tenant = await buildTenant(get().ctx);
    const { publishableKey } = await widgetBot(get(), tenant);
    const session = await startSession(get(), publishableKey);
    const first = await send(get(), session, { text: 'Ich möchte mit einem Mitarbeiter sprechen' });
    expect(first.statusCode).toBe(200);
    const conversationId = first.json<{ conversation_id: string }>().conversation_id;
    const usedBefore = await get().db.query<{ n: number }>(
      'SELECT coalesce(sum(messages_used), 0)::int AS n FROM usage_counters WHERE tenant_id = $1',
      [tenant.id],
    );

    const held = await send(get(), session, { text: 'Ich warte noch.' }, { 'idempotency-key': 'msg-held-1' });
    expect(held.statusCode).toBe(202);
    const body = held.json<{
      status: string;
      conversation_id: string;
      message: { id: string; from: string; text: string };
    }>();
    expect(body).toMatchObject({ status: 'handed_over', conversation_id: conversationId });
    expect(body.message).toMatchObject({ from: 'visitor', text: 'Ich warte noch.' });
    // A retry with the same key stores nothing more and answers the same message.
    const again = await send(
      get(),
      session,
      { text: 'Ich warte noch.' },
      { 'idempotency-key': 'msg-held-1' },
    );
    expect(again.statusCode).toBe(202);
    expect(again.json<{ message: { id: string } }>().message.id).toBe(body.message.id);
    expect(await countMessages(conversationId, 'Ich warte noch.')).toBe(1);
    // Without a key it still works.
    expect((await send(get(), session, { text: 'Noch etwas.' })).statusCode).toBe(202);
    // The bot stayed silent: no model call, no quota used.
    expect(model.requests).toHaveLength(0);
    const usedAfter = await get().db.query<{ n: number }>(
      'SELECT coalesce(sum(messages_used), 0)::int AS n FROM usage_counters WHERE tenant_id = $1',
      [tenant.id],
    );
    expect(usedAfter[0]!.n).toBe(usedBefore[0]!.n);

    const detail = await get().app.inject({
      method: 'GET',
      url: `/api/inbox/${conversationId}`,
      headers: tenant.owner.headers,
    });
    expect(detail.statusCode).toBe(200);
    expect(detail.body).toContain('Ich warte noch.');

    const back = await get().app.inject({
      method: 'POST',
      url: `/api/inbox/${conversationId}/give-back`,
      headers: tenant.owner.headers,
    });
    expect(back.statusCode).toBe(200);
    const answered = await send(get(), session, { text: 'Wann habt ihr geöffnet?' });
    expect(answered.statusCode).toBe(200);
    expect(answered.json<{ reply: string }>().reply).toBe('Aufgezeichnete Antwort.');
    expect(model.requests).toHaveLength(1);
  });

  it('a retried message with the same key is stored and answered once; another text with it is refused', async () => {
    const tenant = await buildTenant(get().ctx);
    const { publishableKey } = await widgetBot(get(), tenant);
    const session = await startSession(get(), publishableKey);
    const key = { 'idempotency-key': 'widget-key-1' };
    const first = await send(get(), session, { text: 'Was kostet der Kurs?' }, key);
    expect(first.statusCode).toBe(200);
    const retry = await send(get(), session, { text: 'Was kostet der Kurs?' }, key);
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual(first.json());
    expect(model.requests).toHaveLength(1);
    const conversationId = first.json<{ conversation_id: string }>().conversation_id;
    expect(await countMessages(conversationId, 'Was kostet der Kurs?')).toBe(1);

    const other = await send(get(), session, { text: 'Etwas anderes' }, key);
    expect(other.statusCode).toBe(422);
    expect(model.requests).toHaveLength(1);

    // Another visitor's same key is their own.
    const stranger = await startSession(get(), publishableKey);
    const theirs = await send(get(), stranger, { text: 'Etwas anderes' }, key);
    expect(theirs.statusCode).toBe(200);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();

    // Without a key every request is a new message.
    expect((await send(get(), session, { text: 'Was kostet der Kurs?' })).statusCode).toBe(200);
    expect(await countMessages(conversationId, 'Was kostet der Kurs?')).toBe(2);
  });
});
