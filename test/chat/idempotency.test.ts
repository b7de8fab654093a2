import { expect, it } from 'vitest';
import type { ModelReply } from '../../src/modules/models/provider.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { RecordingModel, useModel } from './fixtures.js';
import { parseSse, sendChat, usageOf } from './helpers.js';

describeApp('chat idempotency', (get) => {
  it('replays the stored response without a second model call or quota use', async () => {
    const { ctx, db } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const model = new RecordingModel();
    const restore = useModel(ctx, model);
    try {
      const key = { 'idempotency-key': 'order-4711' };
      const first = await sendChat(
        get(),
        tenant,
        bot.id,
        { message: 'Hallo', metadata: { a: 1, b: 2 } },
        key,
      );
      expect(first.statusCode).toBe(200);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const again = await sendChat(
        get(),
        tenant,
        bot.id,
        { message: 'Hallo', metadata: { b: 2, a: 1 } },
        key,
      );
      expect(again.statusCode).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json()).toEqual(first.json());
      expect(model.requests).toHaveLength(1);
      expect((await usageOf(get(), tenant.id)).messages_used).toBe(1);
      expect(await db.query('SELECT 1 FROM messages WHERE tenant_id = $1', [tenant.id])).toHaveLength(2);

      // The replay also works as a stream.
      const streamed = await sendChat(
        get(),
        tenant,
        bot.id,
        { message: 'Hallo', metadata: { a: 1, b: 2 } },
        {
          ...key,
          accept: 'text/event-stream',
        },
      );
      const events = parseSse(streamed.body);
      expect(events.at(-1)).toEqual({ event: 'done', data: first.json() });
      expect(model.requests).toHaveLength(1);
    } finally {
      restore();
    }
  });

  it('422 for the same key with a different body; keys are per tenant', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const key = { 'idempotency-key': 'k-1' };
    expect((await sendChat(get(), tenant, bot.id, { message: 'Eins' }, key)).statusCode).toBe(200);
    const other = await sendChat(get(), tenant, bot.id, { message: 'Zwei' }, key);
    expect(other.statusCode).toBe(422);
    expect(other.json().error).toBe('Idempotency-Key bereits für eine andere Anfrage verwendet');
    const secondTenant = await buildTenant(get().ctx);
    const secondBot = await secondTenant.bot();
    const independent = await sendChat(get(), secondTenant, secondBot.id, { message: 'Zwei' }, key);
    expect(independent.statusCode).toBe(200);
    expect(independent.headers['idempotent-replayed']).toBeUndefined();
  });

  it('409 while the first request with the key is still running', async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const model = new RecordingModel();
    let release: (reply: ModelReply) => void = () => undefined;
    let started: () => void = () => undefined;
    const modelStarted = new Promise<void>((resolve) => (started = resolve));
    model.answer = () =>
      new Promise<ModelReply>((resolve) => {
        release = resolve;
        started();
      });
    const restore = useModel(ctx, model);
    try {
      const key = { 'idempotency-key': 'slow-1' };
      const first = sendChat(get(), tenant, bot.id, { message: 'Hallo' }, key);
      await modelStarted;
      const second = await sendChat(get(), tenant, bot.id, { message: 'Hallo' }, key);
      expect(second.statusCode).toBe(409);
      expect(second.json().error).toBe('Anfrage mit diesem Idempotency-Key wird noch verarbeitet');
      release({ text: 'Fertig.', model: 'recording', promptTokens: 1, completionTokens: 1 });
      expect((await first).statusCode).toBe(200);
      const third = await sendChat(get(), tenant, bot.id, { message: 'Hallo' }, key);
      expect(third.json().reply).toBe('Fertig.');
      expect(model.requests).toHaveLength(1);
    } finally {
      restore();
    }
  });

  it('keeps nothing for a failed request, so the same key can be retried', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({ is_active: false });
    const key = { 'idempotency-key': 'retry-me' };
    expect((await sendChat(get(), tenant, bot.id, { message: 'Hallo' }, key)).statusCode).toBe(403);
    await get().db.query('UPDATE bots SET is_active = true WHERE id = $1', [bot.id]);
    const retried = await sendChat(get(), tenant, bot.id, { message: 'Hallo' }, key);
    expect(retried.statusCode).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });

  it('takes over an expired record and rejects a malformed key', async () => {
    const { db } = get();
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const key = { 'idempotency-key': 'old-key' };
    const first = (await sendChat(get(), tenant, bot.id, { message: 'Eins' }, key)).json();
    await db.query(
      `UPDATE chat_idempotency_keys SET expires_at = now() - interval '1 second' WHERE tenant_id = $1`,
      [tenant.id],
    );
    const fresh = await sendChat(get(), tenant, bot.id, { message: 'Ganz anders' }, key);
    expect(fresh.statusCode).toBe(200);
    expect(fresh.json().conversation_id).not.toBe(first.conversation_id);
    const bad = await sendChat(
      get(),
      tenant,
      bot.id,
      { message: 'x' },
      { 'idempotency-key': 'mit leerzeichen' },
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('Ungültiger Idempotency-Key');
  });
});
