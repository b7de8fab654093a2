import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { chatUrl, sendChat, usageOf } from './helpers.js';

describeApp('chat errors and the order of checks', (get) => {
  const post = (botId: string, headers: Record<string, string>, payload: string) =>
    get().app.inject({ method: 'POST', url: chatUrl(botId), headers, payload });

  it('401: no key, unknown key, expired key, revoked key', async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const body = JSON.stringify({ message: 'Hallo' });
    const json = { 'content-type': 'application/json' };
    expect((await post(bot.id, json, body)).json()).toEqual({ error: 'API Key erforderlich' });
    const unknown = await post(
      bot.id,
      { ...json, authorization: 'Bearer svc_doesnotexist000000000000' },
      body,
    );
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json()).toEqual({ error: 'Ungültiger API Key' });
    const { key: expired } = await ctx.apiKeys.issue({
      tenantId: tenant.id,
      expiresAt: new Date(Date.now() - 1000),
    });
    const res = await post(bot.id, { ...json, 'x-api-key': expired }, body);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'API Key abgelaufen' });
    // Issuing the new key revoked the fixture's key at once.
    const old = await sendChat(get(), tenant, bot.id, { message: 'Hallo' });
    expect(old.json()).toEqual({ error: 'Ungültiger API Key' });
  });

  it('400 texts for message and sender_id', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const cases: [unknown, string][] = [
      [{}, 'Nachricht erforderlich'],
      [{ message: '' }, 'Nachricht erforderlich'],
      [{ message: 7 }, 'Nachricht erforderlich'],
      [{ message: 'x'.repeat(10001) }, 'Nachricht zu lang'],
      [{ message: 'Hallo', sender_id: 12 }, 'Ungültige sender_id'],
      [{ message: 'Hallo', sender_id: 's'.repeat(256) }, 'Ungültige sender_id'],
    ];
    for (const [payload, text] of cases) {
      const res = await sendChat(get(), tenant, bot.id, payload);
      expect(res.statusCode, text).toBe(400);
      expect(res.json()).toEqual({ error: text });
    }
    expect((await usageOf(get(), tenant.id)).messages_used).toBe(0);
  });

  it('400, not 500, for a body that is not JSON, has the wrong type or is oversized', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const auth = tenant.keyHeaders;
    const broken = await post(bot.id, { ...auth, 'content-type': 'application/json' }, '{"message": "Hal');
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toEqual({ error: 'Nachricht erforderlich' });
    const text = await post(bot.id, { ...auth, 'content-type': 'text/plain' }, 'Hallo');
    expect(text.statusCode).toBe(400);
    const empty = await post(bot.id, { ...auth, 'content-type': 'application/json' }, '');
    expect(empty.statusCode).toBe(400);
    const huge = await post(
      bot.id,
      { ...auth, 'content-type': 'application/json' },
      JSON.stringify({ message: 'x'.repeat(300 * 1024) }),
    );
    expect(huge.statusCode).toBe(400);
    expect(huge.json()).toEqual({ error: 'Nachricht zu lang' });
  });

  it('403 for a bot with is_active false or status disabled', async () => {
    const tenant = await buildTenant(get().ctx);
    for (const fields of [{ is_active: false }, { status: 'disabled' as const }]) {
      const bot = await tenant.bot(fields);
      const res = await sendChat(get(), tenant, bot.id, { message: 'Hallo' });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'Bot deaktiviert' });
    }
    // A draft bot is not disabled.
    const draft = await tenant.bot({ status: 'draft' });
    expect((await sendChat(get(), tenant, draft.id, { message: 'Hallo' })).statusCode).toBe(200);
  });

  it('404 for a missing bot, another tenant’s bot and a malformed id, all alike', async () => {
    const tenant = await buildTenant(get().ctx);
    const other = await buildTenant(get().ctx);
    const foreign = await other.bot();
    for (const botId of [randomUUID(), foreign.id, 'not-a-uuid', '1']) {
      const res = await sendChat(get(), tenant, botId, { message: 'Hallo' });
      expect(res.statusCode, botId).toBe(404);
      expect(res.json()).toEqual({ error: 'Bot nicht gefunden' });
    }
    expect(await get().db.query('SELECT 1 FROM conversations WHERE bot_id = $1', [foreign.id])).toHaveLength(
      0,
    );
  });

  it('404 for an unknown, malformed or foreign conversation_id', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const other = await buildTenant(get().ctx);
    const otherBot = await other.bot();
    const foreign = (await sendChat(get(), other, otherBot.id, { message: 'Hallo' })).json().conversation_id;
    for (const conversationId of [randomUUID(), 'abc', "1' OR '1'='1", foreign, 17]) {
      const res = await sendChat(get(), tenant, bot.id, {
        message: 'Hallo',
        conversation_id: conversationId,
      });
      expect(res.statusCode, String(conversationId)).toBe(404);
      expect(res.json()).toEqual({ error: 'Conversation nicht gefunden' });
    }
  });

  it('429 when the monthly quota is used up, with nothing stored', async () => {
    const tenant = await buildTenant(get().ctx, { quota: 1 });
    const bot = await tenant.bot();
    expect((await sendChat(get(), tenant, bot.id, { message: 'Eins' })).json().quota_remaining).toBe(0);
    const res = await sendChat(get(), tenant, bot.id, { message: 'Zwei' });
    expect(res.statusCode).toBe(429);
    expect(res.json()).toEqual({ error: 'Nachrichtenlimit erreicht' });
    expect(await usageOf(get(), tenant.id)).toMatchObject({ messages_used: 1 });
    const rows = await get().db.query('SELECT 1 FROM messages WHERE tenant_id = $1', [tenant.id]);
    expect(rows).toHaveLength(2);
    const none = await buildTenant(get().ctx, { quota: 0 });
    const noneBot = await none.bot();
    expect((await sendChat(get(), none, noneBot.id, { message: 'Hallo' })).statusCode).toBe(429);
    expect(await usageOf(get(), none.id)).toMatchObject({ messages_used: 0 });
  });

  it('checks in the specified order', async () => {
    const { ctx, db } = get();
    const tenant = await buildTenant(ctx, { quota: 0 });
    const disabled = await tenant.bot({ is_active: false });
    const active = await tenant.bot();
    const json = { 'content-type': 'application/json' };
    const huge = JSON.stringify({ message: 'x'.repeat(20000) });

    // Authentication before everything: an unauthenticated oversized message → 401.
    expect((await post(active.id, json, huge)).json()).toEqual({ error: 'API Key erforderlich' });
    expect((await post(active.id, json, 'not json')).statusCode).toBe(401);
    // Validation before the bot: an invalid message for a missing bot → 400.
    expect((await sendChat(get(), tenant, randomUUID(), { message: '' })).json()).toEqual({
      error: 'Nachricht erforderlich',
    });
    // message before sender_id.
    expect((await sendChat(get(), tenant, active.id, { sender_id: 5 })).json()).toEqual({
      error: 'Nachricht erforderlich',
    });
    // Bot before activity and conversation: a missing bot with a bad conversation → 404 bot.
    expect(
      (await sendChat(get(), tenant, randomUUID(), { message: 'x', conversation_id: 'bad' })).json(),
    ).toEqual({
      error: 'Bot nicht gefunden',
    });
    // Activity before the conversation: a disabled bot with an invalid conversation_id → 403.
    const res = await sendChat(get(), tenant, disabled.id, { message: 'Hallo', conversation_id: 'bad' });
    expect(res.statusCode).toBe(403);
    // The conversation before the quota: unknown conversation with the quota used up → 404.
    const unknown = await sendChat(get(), tenant, active.id, {
      message: 'Hallo',
      conversation_id: randomUUID(),
    });
    expect(unknown.json()).toEqual({ error: 'Conversation nicht gefunden' });
    // Hand-over before the quota.
    const [conversation] = await db.query<{ id: string }>(
      `INSERT INTO conversations (tenant_id, bot_id, status) VALUES ($1, $2, 'handed_over') RETURNING id`,
      [tenant.id, active.id],
    );
    const handed = await sendChat(get(), tenant, active.id, {
      message: 'Hallo',
      conversation_id: conversation!.id,
    });
    expect(handed.statusCode).toBe(409);
    // Finally the quota.
    expect((await sendChat(get(), tenant, active.id, { message: 'Hallo' })).json()).toEqual({
      error: 'Nachrichtenlimit erreicht',
    });
  });

  it('400 for metadata that is no object and for unknown fields', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const bad = await sendChat(get(), tenant, bot.id, { message: 'Hallo', metadata: ['a'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('Ungültige metadata');
    const unknown = await sendChat(get(), tenant, bot.id, { message: 'Hallo', stream: true });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual({
      error: 'Unbekanntes Feld',
      message: "Das Feld 'stream' ist nicht erlaubt.",
    });
  });
});
