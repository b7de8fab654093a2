import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { addKnowledge } from './fixtures.js';

const url = (botId: string) => `/api/bots/${botId}/test-chat`;

describeApp('dashboard test chat', (get) => {
  it('answers from the knowledge base with sources, under the session, and continues the conversation', async () => {
    const { ctx, app } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    await addKnowledge(ctx, tenant.id, bot.id, {
      title: 'Öffnungszeiten',
      content: 'Der Salon ist Montag bis Freitag von 9 bis 18 Uhr geöffnet.',
    });
    const editor = await tenant.user('editor');
    const first = await app.inject({
      method: 'POST',
      url: url(bot.id),
      headers: editor.headers,
      payload: { message: 'Wann ist der Salon geöffnet?' },
    });
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body.reply).toContain('9 bis 18 Uhr');
    expect(body.sources[0]).toMatchObject({ title: 'Öffnungszeiten' });
    const next = await app.inject({
      method: 'POST',
      url: url(bot.id),
      headers: editor.headers,
      payload: { message: 'Und am Samstag?', conversation_id: body.conversation_id },
    });
    expect(next.statusCode).toBe(200);
    expect(next.json().conversation_id).toBe(body.conversation_id);
    const conversation = await app.inject({
      method: 'GET',
      url: `/api/conversations/${body.conversation_id}`,
      headers: editor.headers,
    });
    expect(conversation.json()).toMatchObject({ sender_id: 'dashboard-test', message_count: 4 });
  });

  it('streams with Accept: text/event-stream', async () => {
    const { ctx, app } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const res = await app.inject({
      method: 'POST',
      url: url(bot.id),
      headers: { ...tenant.owner.headers, accept: 'text/event-stream' },
      payload: { message: 'Hallo' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/event-stream');
    expect(res.body).toContain('event: done');
  });

  it('keeps the chat rules: message required, inactive bot refused', async () => {
    const { ctx, app } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot({ is_active: false });
    const empty = await app.inject({
      method: 'POST',
      url: url(bot.id),
      headers: tenant.owner.headers,
      payload: { message: '' },
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toEqual({ error: 'Nachricht erforderlich' });
    const disabled = await app.inject({
      method: 'POST',
      url: url(bot.id),
      headers: tenant.owner.headers,
      payload: { message: 'Hallo' },
    });
    expect(disabled.statusCode).toBe(403);
    expect(disabled.json()).toEqual({ error: 'Bot deaktiviert' });
  });

  it('needs a session (401), bot:edit (403), and the own tenant (404)', async () => {
    const { ctx, app } = get();
    const tenant = await buildTenant(ctx);
    const other = await buildTenant(ctx);
    const bot = await tenant.bot();
    const anonymous = await app.inject({ method: 'POST', url: url(bot.id), payload: { message: 'Hallo' } });
    expect(anonymous.statusCode).toBe(401);
    const byKey = await app.inject({
      method: 'POST',
      url: url(bot.id),
      headers: tenant.keyHeaders,
      payload: { message: 'Hallo' },
    });
    expect(byKey.statusCode).toBe(401);
    const viewer = await tenant.user('viewer');
    const forbidden = await app.inject({
      method: 'POST',
      url: url(bot.id),
      headers: viewer.headers,
      payload: { message: 'Hallo' },
    });
    expect(forbidden.statusCode).toBe(403);
    const foreign = await app.inject({
      method: 'POST',
      url: url(bot.id),
      headers: other.owner.headers,
      payload: { message: 'Hallo' },
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ error: 'Bot nicht gefunden' });
  });
});
