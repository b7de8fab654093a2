import { randomUUID } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { OFFLINE_MODEL_NAME } from '../../src/modules/models/offline.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { addKnowledge, RecordingModel, useModel } from './fixtures.js';
import { chatUrl, sendChat, usageOf } from './helpers.js';

describeApp('chat endpoint', (get) => {
  let restore: (() => void) | undefined;
  afterEach(() => {
    restore?.();
    restore = undefined;
  });

  it('answers from the knowledge base and stores the exchange', async () => {
    const { ctx, db } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot({ system_prompt: 'Du bist der Assistent des Salons.' });
    await addKnowledge(ctx, tenant.id, bot.id, {
      title: 'Öffnungszeiten',
      content: 'Der Salon ist Montag bis Freitag von 9 bis 18 Uhr geöffnet.',
      source_url: 'https://salon.example/zeiten',
    });
    const res = await sendChat(get(), tenant, bot.id, {
      message: 'Wann ist der Salon geöffnet?',
      sender_id: 'kunde-1',
      channel: 'email',
      metadata: { ticket: 4711 },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(
      [
        'actions',
        'blocks',
        'channel',
        'conversation_id',
        'knowledge_used',
        'model',
        'quota_remaining',
        'reply',
        'sources',
        'tokens_used',
      ].sort(),
    );
    expect(body.reply).toContain('Montag bis Freitag von 9 bis 18 Uhr');
    expect(body.model).toBe(OFFLINE_MODEL_NAME);
    expect(body.knowledge_used).toBe(true);
    expect(body.quota_remaining).toBe(9999);
    expect(body.channel).toBe('email');
    expect(body.actions).toEqual([]);
    expect(body.sources).toHaveLength(1);
    expect(body.sources[0]).toMatchObject({
      title: 'Öffnungszeiten',
      source_url: 'https://salon.example/zeiten',
    });
    expect(body.tokens_used).toBeGreaterThan(0);

    const [conversation] = await db.query<Record<string, unknown>>(
      'SELECT tenant_id, bot_id, channel, sender_id, metadata, status, message_count FROM conversations WHERE id = $1',
      [body.conversation_id],
    );
    expect(conversation).toEqual({
      tenant_id: tenant.id,
      bot_id: bot.id,
      channel: 'email',
      sender_id: 'kunde-1',
      metadata: { ticket: 4711 },
      status: 'active',
      message_count: 2,
    });
    const messages = await db.query<Record<string, unknown>>(
      'SELECT role, content, channel, tokens, model, knowledge_used FROM messages WHERE conversation_id = $1 ORDER BY seq',
      [body.conversation_id],
    );
    expect(messages.map((m) => [m.role, m.channel, m.model, m.knowledge_used])).toEqual([
      ['user', 'email', OFFLINE_MODEL_NAME, true],
      ['assistant', 'email', OFFLINE_MODEL_NAME, true],
    ]);
    expect(messages[0]!.content).toBe('Wann ist der Salon geöffnet?');
    expect(messages[1]!.content).toBe(body.reply);
    expect(Number(messages[0]!.tokens) + Number(messages[1]!.tokens)).toBe(body.tokens_used);
    expect(await usageOf(get(), tenant.id)).toEqual({ messages_used: 1, tokens_used: body.tokens_used });
  });

  it('continues a conversation with its id and accepts the key as x-api-key', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const first = (await sendChat(get(), tenant, bot.id, { message: 'Hallo' })).json();
    const res = await get().app.inject({
      method: 'POST',
      url: chatUrl(bot.id),
      headers: { 'x-api-key': tenant.apiKey },
      payload: { message: 'Noch eine Frage', conversation_id: first.conversation_id },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().conversation_id).toBe(first.conversation_id);
    expect(res.json().quota_remaining).toBe(first.quota_remaining - 1);
    const [row] = await get().db.query<{ message_count: number }>(
      'SELECT message_count FROM conversations WHERE id = $1',
      [first.conversation_id],
    );
    expect(row!.message_count).toBe(4);
  });

  it('hands over politely when the knowledge base has no answer', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({ formal_address: true });
    const res = await sendChat(get(), tenant, bot.id, { message: 'What is the weather like tomorrow?' });
    expect(res.statusCode).toBe(200);
    expect(res.json().knowledge_used).toBe(false);
    expect(res.json().sources).toEqual([]);
    expect(res.json().reply).toMatch(/^I'm sorry, I don't have reliable information/);
  });

  it.each([
    ['email', 'email'],
    ['webhook', 'webhook'],
    ['api', 'api'],
    ['sms', 'api'],
    ['WhatsApp', 'api'],
    [42, 'api'],
    [undefined, 'api'],
  ])('channel %j becomes %s in the answer and the records', async (channel, expected) => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const res = await sendChat(get(), tenant, bot.id, { message: 'Hallo', channel });
    expect(res.statusCode).toBe(200);
    expect(res.json().channel).toBe(expected);
    const rows = await get().db.query<{ channel: string }>(
      `SELECT channel FROM conversations WHERE id = $1
       UNION ALL SELECT channel FROM messages WHERE conversation_id = $1`,
      [res.json().conversation_id],
    );
    expect(rows.map((r) => r.channel)).toEqual([expected, expected, expected]);
  });

  it('sends the last 10 messages in chronological order as context', async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const model = new RecordingModel();
    let n = 0;
    model.answer = async () => ({
      text: `Antwort ${++n}`,
      model: 'recording',
      promptTokens: 3,
      completionTokens: 2,
    });
    restore = useModel(ctx, model);
    let conversationId: string | undefined;
    for (let i = 1; i <= 6; i++) {
      const res = await sendChat(get(), tenant, bot.id, {
        message: `Frage ${i}`,
        ...(conversationId ? { conversation_id: conversationId } : {}),
      });
      expect(res.statusCode).toBe(200);
      conversationId = res.json().conversation_id;
    }
    // Six exchanges are 12 messages; the seventh request must see the last 10 of them.
    const res = await sendChat(get(), tenant, bot.id, {
      message: 'Frage 7',
      conversation_id: conversationId,
    });
    expect(res.statusCode).toBe(200);
    const sent = model.requests.at(-1)!.messages;
    expect(sent).toHaveLength(11);
    const expected = [2, 3, 4, 5, 6].flatMap((i) => [`Frage ${i}`, `Antwort ${i}`]);
    expect(sent.slice(0, 10).map((m) => m.role)).toEqual(
      expected.map((_, i) => (i % 2 === 0 ? 'user' : 'assistant')),
    );
    sent.slice(0, 10).forEach((message, i) => expect(message.content).toContain(expected[i]!));
    expect(sent[10]!.content).toContain('Frage 7');
    expect(model.requests[0]!.messages).toHaveLength(1);
  });

  it('does not let the bot answer in a conversation a human took over, and uses no quota', async () => {
    const { ctx, db } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const model = new RecordingModel();
    restore = useModel(ctx, model);
    const first = (await sendChat(get(), tenant, bot.id, { message: 'Hallo' })).json();
    await db.query(`UPDATE conversations SET status = 'handed_over' WHERE id = $1`, [first.conversation_id]);
    const res = await sendChat(get(), tenant, bot.id, {
      message: 'Hallo?',
      conversation_id: first.conversation_id,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'Conversation an Mitarbeiter übergeben' });
    expect(model.requests).toHaveLength(1);
    expect((await usageOf(get(), tenant.id)).messages_used).toBe(1);
  });

  it('stores nothing when a human takes the conversation over while the model is answering', async () => {
    const { ctx, db } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const first = (await sendChat(get(), tenant, bot.id, { message: 'Hallo' })).json();
    const model = new RecordingModel();
    const ordinary = model.answer;
    model.answer = async (request) => {
      await db.query(`UPDATE conversations SET status = 'handed_over' WHERE id = $1`, [
        first.conversation_id,
      ]);
      return ordinary(request);
    };
    restore = useModel(ctx, model);
    const res = await sendChat(get(), tenant, bot.id, {
      message: 'Noch da?',
      conversation_id: first.conversation_id,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe('Conversation an Mitarbeiter übergeben');
    const messages = await db.query('SELECT 1 FROM messages WHERE conversation_id = $1', [
      first.conversation_id,
    ]);
    expect(messages).toHaveLength(2);
    expect((await usageOf(get(), tenant.id)).messages_used).toBe(1);
  });

  it('reopens an ended conversation that gets a new message', async () => {
    const { db } = get();
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const first = (await sendChat(get(), tenant, bot.id, { message: 'Hallo' })).json();
    await db.query(`UPDATE conversations SET status = 'ended', ended_at = now() WHERE id = $1`, [
      first.conversation_id,
    ]);
    const res = await sendChat(get(), tenant, bot.id, {
      message: 'Doch noch was',
      conversation_id: first.conversation_id,
    });
    expect(res.statusCode).toBe(200);
    const [row] = await db.query<{ status: string; ended_at: Date | null }>(
      'SELECT status, ended_at FROM conversations WHERE id = $1',
      [first.conversation_id],
    );
    expect(row).toEqual({ status: 'active', ended_at: null });
  });

  it('answers 500 "Interner Fehler" without internals and gives the reservation back', async () => {
    const { ctx, db } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const model = new RecordingModel();
    model.answer = async () => {
      throw new Error('secret internal detail at /srv/app.js:12');
    };
    restore = useModel(ctx, model);
    const res = await sendChat(get(), tenant, bot.id, { message: 'Hallo' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: 'Interner Fehler' });
    expect((await usageOf(get(), tenant.id)).messages_used).toBe(0);
    expect(await db.query('SELECT 1 FROM conversations WHERE tenant_id = $1', [tenant.id])).toHaveLength(0);
  });

  it('passes the bot’s model override to the provider', async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot({ model: 'openai:gpt-4.1-mini' });
    const model = new RecordingModel();
    restore = useModel(ctx, model);
    expect((await sendChat(get(), tenant, bot.id, { message: 'Hallo' })).statusCode).toBe(200);
    expect(model.requests[0]!.model).toBe('openai:gpt-4.1-mini');
  });

  it('reports quota_remaining null for an unlimited plan', async () => {
    const tenant = await buildTenant(get().ctx, { plan: 'enterprise' });
    const bot = await tenant.bot();
    const res = await sendChat(get(), tenant, bot.id, { message: 'Hallo' });
    expect(res.json().quota_remaining).toBeNull();
    expect((await usageOf(get(), tenant.id)).messages_used).toBe(1);
  });

  it('404s for an unknown conversation even when it exists for another bot', async () => {
    const tenant = await buildTenant(get().ctx);
    const [a, b] = [await tenant.bot(), await tenant.bot()];
    const first = (await sendChat(get(), tenant, a.id, { message: 'Hallo' })).json();
    const res = await sendChat(get(), tenant, b.id, {
      message: 'Hallo',
      conversation_id: first.conversation_id,
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Conversation nicht gefunden' });
    const unknown = await sendChat(get(), tenant, a.id, { message: 'Hallo', conversation_id: randomUUID() });
    expect(unknown.json()).toEqual({ error: 'Conversation nicht gefunden' });
  });
});
