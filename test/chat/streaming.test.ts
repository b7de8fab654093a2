import { expect, it } from 'vitest';
import { ModelUnavailableError, type ModelStreamEvent } from '../../src/modules/models/provider.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { addKnowledge, RecordingModel, useModel } from './fixtures.js';
import { parseSse, sendChat, usageOf } from './helpers.js';

const SSE = { accept: 'text/event-stream' };

describeApp('chat streaming', (get) => {
  it('streams deltas, then the full response, and stores the exchange like the JSON answer', async () => {
    const { ctx, db } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    await addKnowledge(ctx, tenant.id, bot.id, {
      title: 'Lieferung',
      content: 'Wir liefern innerhalb von zwei Werktagen.',
    });
    const res = await sendChat(get(), tenant, bot.id, { message: 'Wie schnell kommt die Lieferung?' }, SSE);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(res.headers['ratelimit-limit']).toBe('60');
    expect(res.headers['x-request-id']).toBeTruthy();
    const events = parseSse(res.body);
    const deltas = events.filter((e) => e.event === 'delta').map((e) => (e.data as { text: string }).text);
    expect(deltas.length).toBeGreaterThan(3);
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    const response = done.data as Record<string, unknown>;
    expect(deltas.join('')).toBe(response.reply);
    expect(response).toMatchObject({ knowledge_used: true, channel: 'api', actions: [] });
    expect(response.reply).toContain('zwei Werktagen');
    const messages = await db.query<{ role: string; content: string }>(
      'SELECT role, content FROM messages WHERE conversation_id = $1 ORDER BY seq',
      [response.conversation_id],
    );
    expect(messages).toEqual([
      { role: 'user', content: 'Wie schnell kommt die Lieferung?' },
      { role: 'assistant', content: response.reply },
    ]);
    expect((await usageOf(get(), tenant.id)).messages_used).toBe(1);
  });

  it('runs every check before the stream opens: errors are ordinary JSON responses', async () => {
    const tenant = await buildTenant(get().ctx, { quota: 0 });
    const disabled = await tenant.bot({ is_active: false });
    const active = await tenant.bot();
    const off = await sendChat(get(), tenant, disabled.id, { message: 'Hallo' }, SSE);
    expect(off.statusCode).toBe(403);
    expect(off.json()).toEqual({ error: 'Bot deaktiviert' });
    const quota = await sendChat(get(), tenant, active.id, { message: 'Hallo' }, SSE);
    expect(quota.statusCode).toBe(429);
    expect(quota.json()).toEqual({ error: 'Nachrichtenlimit erreicht' });
    const invalid = await sendChat(get(), tenant, active.id, { message: '' }, SSE);
    expect(invalid.json()).toEqual({ error: 'Nachricht erforderlich' });
  });

  it('ends with an error event when the model fails mid-stream, storing nothing and releasing the quota', async () => {
    const { ctx, db } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const model = new RecordingModel();
    model.stream = async function* (): AsyncGenerator<ModelStreamEvent> {
      yield { type: 'delta', text: 'Einen ' };
      throw new ModelUnavailableError('connection reset', 'fake', 12);
    };
    const restore = useModel(ctx, model);
    try {
      const res = await sendChat(get(), tenant, bot.id, { message: 'Hallo' }, SSE);
      expect(res.statusCode).toBe(200);
      const events = parseSse(res.body);
      expect(events.map((e) => e.event)).toEqual(['delta', 'error']);
      expect(events[1]!.data).toEqual({
        error: 'KI-Modell nicht verfügbar',
        message: 'Das KI-Modell ist vorübergehend nicht erreichbar. Bitte in 12 Sekunden erneut versuchen.',
      });
      expect((await usageOf(get(), tenant.id)).messages_used).toBe(0);
      expect(await db.query('SELECT 1 FROM conversations WHERE tenant_id = $1', [tenant.id])).toHaveLength(0);
    } finally {
      restore();
    }
  });
});
