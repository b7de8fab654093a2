import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { sendChat, usageOf } from './helpers.js';

describeApp('test chat quota and repeated messages during a hand-over', (get) => {
  it("the test chat's quota_remaining counts what customers used, not the test message", async () => {
    const { ctx, app } = get();
    const tenant = await buildTenant(ctx, { plan: 'starter' });
    const bot = await tenant.bot();
    const first = await sendChat(get(), tenant, bot.id, { message: 'Hallo' });
    expect(first.statusCode, first.body).toBe(200);
    const afterCustomer = first.json<{ quota_remaining: number }>().quota_remaining;
    expect(typeof afterCustomer).toBe('number');
    const test = await app.inject({
      method: 'POST',
      url: `/api/bots/${bot.id}/test-chat`,
      headers: tenant.owner.headers,
      payload: { message: 'Hallo aus dem Dashboard' },
    });
    expect(test.statusCode, test.body).toBe(200);
    // Nothing more was used: the same number as after the customer's message.
    expect(test.json<{ quota_remaining: number }>().quota_remaining).toBe(afterCustomer);
    expect((await usageOf(get(), tenant.id)).messages_used).toBe(1);
    const second = await sendChat(get(), tenant, bot.id, { message: 'Noch eine Frage' });
    expect(second.json<{ quota_remaining: number }>().quota_remaining).toBe(afterCustomer - 1);
  });

  it('a customer message repeated with the same Idempotency-Key while people hold the conversation is stored once', async () => {
    const { ctx, db } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const start = await sendChat(get(), tenant, bot.id, {
      message: 'Ich möchte mit einem Mitarbeiter sprechen',
    });
    const conversationId = start.json<{ conversation_id: string }>().conversation_id;
    const send = (key: string, message = 'Ist jemand da?') =>
      sendChat(
        get(),
        tenant,
        bot.id,
        { message, conversation_id: conversationId },
        { 'idempotency-key': key },
      );
    const results = [await send('key-1'), await send('key-1'), await send('key-1')];
    expect(results.map((r) => r.statusCode)).toEqual([409, 409, 409]);
    // A different key is a different message; no key stores every time.
    expect((await send('key-2')).statusCode).toBe(409);
    const rows = await db.query<{ content: string; n: number }>(
      `SELECT content, count(*)::int AS n FROM messages WHERE conversation_id = $1 AND role = 'user' GROUP BY content`,
      [conversationId],
    );
    expect(Object.fromEntries(rows.map((r) => [r.content, r.n]))).toEqual({
      'Ich möchte mit einem Mitarbeiter sprechen': 1,
      'Ist jemand da?': 2,
    });
    const [conversation] = await db.query<{ message_count: number }>(
      'SELECT message_count FROM conversations WHERE id = $1',
      [conversationId],
    );
    expect(conversation!.message_count).toBe(4);
    // The same key in another conversation is its own message.
    const other = await sendChat(get(), tenant, bot.id, {
      message: 'Ich möchte mit einem Mitarbeiter sprechen',
    });
    const otherId = other.json<{ conversation_id: string }>().conversation_id;
    const elsewhere = await sendChat(
      get(),
      tenant,
      bot.id,
      { message: 'Ist jemand da?', conversation_id: otherId },
      { 'idempotency-key': 'key-1' },
    );
    expect(elsewhere.statusCode).toBe(409);
    const stored = await db.query('SELECT 1 FROM messages WHERE conversation_id = $1 AND role = $2', [
      otherId,
      'user',
    ]);
    expect(stored).toHaveLength(2);
  });
});
