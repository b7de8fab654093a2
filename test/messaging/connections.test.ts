import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import {
  ACCESS_TOKEN,
  APP_SECRET,
  AUTH_TOKEN,
  SMS_CONNECTION,
  VERIFY_TOKEN,
  WHATSAPP_CONNECTION,
  addConnection,
} from './setup.js';

describeApp('channel connections API (WhatsApp, SMS, voice)', (get) => {
  it('creates, lists, shows, changes and deletes; secrets are write-only and encrypted at rest', async () => {
    const { app, db } = get();
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const created = await app.inject({
      method: 'POST',
      url: `/api/bots/${bot.id}/connections`,
      headers: tenant.owner.headers,
      payload: WHATSAPP_CONNECTION,
    });
    expect(created.statusCode, created.body).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({
      kind: 'whatsapp_cloud',
      name: 'WhatsApp Hotline',
      phone_number_id: '1098765432',
      secrets_set: ['access_token', 'app_secret', 'verify_token'],
      webhook_url: `https://parley.example.test/v1/channels/${body.id}/webhook`,
      status_callback_url: null,
      quiet_window_ms: 1500,
      health: { healthy: true, last_error: null, error_counts: [], statuses: {} },
    });
    for (const secret of [ACCESS_TOKEN, APP_SECRET, VERIFY_TOKEN]) expect(created.body).not.toContain(secret);
    const [row] = await db.query<{ secrets: Record<string, string> }>(
      'SELECT secrets FROM channel_connections WHERE id = $1',
      [body.id],
    );
    expect(JSON.stringify(row!.secrets)).not.toContain(ACCESS_TOKEN);
    expect(row!.secrets.access_token).toMatch(/^s1:/);

    const sms = await addConnection(app, tenant, bot.id, { ...SMS_CONNECTION, public_base_url: undefined });
    expect(sms.webhook_url).toBe(`http://localhost:3000/v1/channels/${sms.id}/webhook`);
    expect(sms.status_callback_url).toBe(`http://localhost:3000/v1/channels/${sms.id}/status`);

    const list = await app.inject({
      method: 'GET',
      url: `/api/bots/${bot.id}/connections`,
      headers: tenant.owner.headers,
    });
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((c: { id: string }) => c.id)).toEqual([body.id, sms.id]);
    expect(list.body).not.toContain(AUTH_TOKEN);

    const patched = await app.inject({
      method: 'PATCH',
      url: `/api/bots/${bot.id}/connections/${body.id}`,
      headers: tenant.owner.headers,
      payload: { name: 'Neu', access_token: 'rotated-token', quiet_window_ms: 500 },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({
      name: 'Neu',
      quiet_window_ms: 500,
      phone_number_id: '1098765432',
    });
    const [rotated] = await db.query<{ secrets: Record<string, string> }>(
      'SELECT secrets FROM channel_connections WHERE id = $1',
      [body.id],
    );
    expect(rotated!.secrets.access_token).not.toBe(row!.secrets.access_token);
    expect(rotated!.secrets.app_secret).toBe(row!.secrets.app_secret);

    const one = await app.inject({
      method: 'GET',
      url: `/api/bots/${bot.id}/connections/${body.id}`,
      headers: tenant.owner.headers,
    });
    expect(one.json().name).toBe('Neu');

    const removed = await app.inject({
      method: 'DELETE',
      url: `/api/bots/${bot.id}/connections/${body.id}`,
      headers: tenant.owner.headers,
    });
    expect(removed.statusCode).toBe(204);
    const gone = await app.inject({
      method: 'GET',
      url: `/api/bots/${bot.id}/connections/${body.id}`,
      headers: tenant.owner.headers,
    });
    expect(gone.statusCode).toBe(404);
  });

  it('accepts a voice connection and refuses incomplete bodies and fields of another kind, storing nothing', async () => {
    const { app, db } = get();
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const voice = await addConnection(app, tenant, bot.id, {
      kind: 'twilio_voice',
      name: 'Hotline',
      account_sid: SMS_CONNECTION.account_sid,
      auth_token: AUTH_TOKEN,
      phone_number: '+4930222222',
      handoff_number: '+4930333333',
    });
    expect(voice).toMatchObject({ kind: 'twilio_voice', mode: 'relay', handoff_number: '+4930333333' });
    const cases: [object, string][] = [
      [{ ...WHATSAPP_CONNECTION, app_secret: undefined }, 'app_secret'],
      [{ ...SMS_CONNECTION, from_number: undefined }, 'from_number'],
      [{ ...SMS_CONNECTION, phone_number_id: '123' }, 'phone_number_id'],
    ];
    for (const [payload, field] of cases) {
      const res = await app.inject({
        method: 'POST',
        url: `/api/bots/${bot.id}/connections`,
        headers: tenant.owner.headers,
        payload,
      });
      expect(res.statusCode, field).toBe(400);
      expect(res.json().details.field).toBe(field);
    }
    const bad = await app.inject({
      method: 'POST',
      url: `/api/bots/${bot.id}/connections`,
      headers: tenant.owner.headers,
      payload: { ...SMS_CONNECTION, from_number: '030 1234' },
    });
    expect(bad.statusCode).toBe(400);
    const [count] = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM channel_connections WHERE bot_id = $1',
      [bot.id],
    );
    expect(count!.n).toBe(1);
  });

  it('needs a session, bot:edit to write and bot:view to read; another tenant’s ids are 404', async () => {
    const { app } = get();
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const conn = await addConnection(app, tenant, bot.id, WHATSAPP_CONNECTION);
    const anonymous = await app.inject({ method: 'GET', url: `/api/bots/${bot.id}/connections` });
    expect(anonymous.statusCode).toBe(401);
    const viewer = await tenant.user('viewer');
    expect(
      (await app.inject({ method: 'GET', url: `/api/bots/${bot.id}/connections`, headers: viewer.headers }))
        .statusCode,
    ).toBe(200);
    const write = await app.inject({
      method: 'POST',
      url: `/api/bots/${bot.id}/connections`,
      headers: viewer.headers,
      payload: WHATSAPP_CONNECTION,
    });
    expect(write.statusCode).toBe(403);
    const agent = await tenant.user('agent');
    expect(
      (await app.inject({ method: 'GET', url: `/api/bots/${bot.id}/connections`, headers: agent.headers }))
        .statusCode,
    ).toBe(403);

    const other = await buildTenant(get().ctx);
    const otherBot = await other.bot();
    for (const [method, url] of [
      ['GET', `/api/bots/${bot.id}/connections`],
      ['GET', `/api/bots/${bot.id}/connections/${conn.id}`],
      ['GET', `/api/bots/${otherBot.id}/connections/${conn.id}`],
      ['PATCH', `/api/bots/${otherBot.id}/connections/${conn.id}`],
      ['DELETE', `/api/bots/${otherBot.id}/connections/${conn.id}`],
      ['GET', `/api/bots/${otherBot.id}/connections/not-a-uuid`],
    ] as const) {
      const res = await app.inject({
        method,
        url,
        headers: other.owner.headers,
        ...(method === 'PATCH' ? { payload: { name: 'x' } } : {}),
      });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
  });
});
