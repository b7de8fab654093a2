import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { addMailbox, IMAP_MAILBOX } from '../email/mailbox-setup.js';

describeApp('go-live: checklist endpoint, bots created inactive', (get) => {
  const url = (botId: string) => `/api/bots/${botId}/golive`;

  it('a bot created in the dashboard starts as an inactive draft; POST /v1/bots keeps its default', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const created = await app.inject({
      method: 'POST',
      url: '/api/bots',
      headers: tenant.owner.headers,
      payload: { name: 'Salon', is_active: true, status: 'active' },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ is_active: false, status: 'draft' });

    const v1 = await app.inject({
      method: 'POST',
      url: '/v1/bots',
      headers: { authorization: `Bearer ${tenant.apiKey}` },
      payload: { name: 'Über die API' },
    });
    expect(v1.statusCode).toBe(201);
    expect(v1.json()).toMatchObject({ is_active: true });
  });

  it('follows the bot from new to ready, item by item', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const headers = tenant.owner.headers;
    const botId = (
      await app.inject({ method: 'POST', url: '/api/bots', headers, payload: { name: 'Salon' } })
    ).json().id as string;
    const checklist = async () => {
      const res = await app.inject({ url: url(botId), headers });
      expect(res.statusCode).toBe(200);
      return res.json();
    };
    const first = await checklist();
    expect(first).toMatchObject({
      ready: false,
      is_active: false,
      missing: ['prompt', 'knowledge', 'channel', 'test_conversation'],
    });
    expect(first.items.find((i: { key: string }) => i.key === 'preflight').done).toBe(true);

    await app.inject({
      method: 'PATCH',
      url: `/api/bots/${botId}`,
      headers,
      payload: { system_prompt: 'Du bist der Assistent des Salons.' },
    });
    await app.inject({
      method: 'POST',
      url: `/api/bots/${botId}/knowledge`,
      headers,
      payload: { title: 'Öffnungszeiten', content: 'Montag bis Freitag 9 bis 18 Uhr.' },
    });
    expect((await checklist()).missing).toEqual(['channel', 'test_conversation']);

    // The widget on without a website does not count; the share link does.
    await app.inject({
      method: 'PUT',
      url: `/api/bots/${botId}/widget`,
      headers,
      payload: { enabled: true },
    });
    expect((await checklist()).missing).toContain('channel');
    await app.inject({
      method: 'PUT',
      url: `/api/bots/${botId}/widget`,
      headers,
      payload: { share_link_enabled: true },
    });
    const shared = await checklist();
    expect(shared.items.find((i: { key: string }) => i.key === 'channel')).toMatchObject({
      done: true,
      channels: ['share_link'],
    });

    // A draft can be tried in the test chat before it goes live.
    const test = await app.inject({
      method: 'POST',
      url: `/api/bots/${botId}/test-chat`,
      headers,
      payload: { message: 'Wann habt ihr offen?' },
    });
    expect(test.statusCode, test.body).toBe(200);
    const ready = await checklist();
    expect(ready).toMatchObject({ ready: true, missing: [], is_active: false });

    // The chat endpoint still refuses the draft until it is activated.
    const live = await app.inject({
      method: 'POST',
      url: `/api/bot-chat/${botId}/chat`,
      headers: { authorization: `Bearer ${tenant.apiKey}` },
      payload: { message: 'Hallo' },
    });
    expect(live.statusCode).toBe(403);
    const on = await app.inject({
      method: 'PATCH',
      url: `/api/bots/${botId}`,
      headers,
      payload: { is_active: true, status: 'active' },
    });
    expect(on.statusCode).toBe(200);
    expect((await checklist()).is_active).toBe(true);
  });

  it('an active mailbox counts as a channel', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    await addMailbox(app, tenant, bot.id, IMAP_MAILBOX);
    const res = await app.inject({ url: url(bot.id), headers: tenant.owner.headers });
    expect(res.json().items.find((i: { key: string }) => i.key === 'channel')).toMatchObject({
      done: true,
      channels: ['email'],
    });
  });

  it('needs a session (401) and bot:view (403); another tenant’s bot is 404', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const other = await buildTenant(ctx);
    const bot = await tenant.bot();
    expect((await app.inject({ url: url(bot.id) })).statusCode).toBe(401);
    const agent = await tenant.user('agent');
    expect((await app.inject({ url: url(bot.id), headers: agent.headers })).statusCode).toBe(403);
    const viewer = await tenant.user('viewer');
    expect((await app.inject({ url: url(bot.id), headers: viewer.headers })).statusCode).toBe(200);
    const foreign = await app.inject({ url: url(bot.id), headers: other.owner.headers });
    expect(foreign.statusCode).toBe(404);
    expect((await app.inject({ url: url('kein-bot'), headers: tenant.owner.headers })).statusCode).toBe(404);
  });
});
