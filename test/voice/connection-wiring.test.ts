import twilio from 'twilio';
import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { checkTwiml } from './twiml-check.js';

const AUTH_TOKEN = 'voice-auth-token-0123456789abcdef';
const BASE = 'https://calls.example.test';

describeApp('voice: a twilio_voice connection made through the API answers calls', (get) => {
  it('its webhook URLs are the voice routes, a call signed with its token is answered, a wrong token refused', async () => {
    const { app } = get();
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const created = await app.inject({
      method: 'POST',
      url: `/api/bots/${bot.id}/connections`,
      headers: tenant.owner.headers,
      payload: {
        kind: 'twilio_voice',
        name: 'Telefon',
        account_sid: `AC${'1'.repeat(32)}`,
        auth_token: AUTH_TOKEN,
        phone_number: '+493012345678',
        handoff_number: '+493087654321',
        public_base_url: BASE,
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { id, webhook_url, status_callback_url } = created.json();
    expect(webhook_url).toBe(`${BASE}/v1/channels/${id}/voice/incoming`);
    expect(status_callback_url).toBe(`${BASE}/v1/channels/${id}/voice/status`);
    expect(created.body).not.toContain(AUTH_TOKEN);

    const form = { CallSid: `CA${'2'.repeat(32)}`, From: '+491701112233', To: '+493012345678' };
    const call = (token: string) =>
      app.inject({
        method: 'POST',
        url: `/v1/channels/${id}/voice/incoming`,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-twilio-signature': twilio.getExpectedTwilioSignature(token, webhook_url, form),
        },
        payload: new URLSearchParams(form).toString(),
      });
    const answered = await call(AUTH_TOKEN);
    expect(answered.statusCode, answered.body).toBe(200);
    expect(checkTwiml(answered.body)).toBeTruthy();
    expect(answered.body).toContain('<ConversationRelay');
    expect(answered.body).toContain(`wss://calls.example.test/v1/channels/${id}/voice/relay`);
    expect((await call('not-the-token')).statusCode).toBe(403);

    // Switched off, the number is unknown to the voice routes.
    const off = await app.inject({
      method: 'PATCH',
      url: `/api/bots/${bot.id}/connections/${id}`,
      headers: tenant.owner.headers,
      payload: { is_active: false },
    });
    expect(off.statusCode, off.body).toBe(200);
    expect((await call(AUTH_TOKEN)).statusCode).toBe(404);
  });

  it('its language, greeting, opening hours and limits are settings of the connection, checked and used by calls', async () => {
    const { app, db } = get();
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const base = {
      kind: 'twilio_voice',
      name: 'Hotline',
      account_sid: `AC${'3'.repeat(32)}`,
      auth_token: AUTH_TOKEN,
      phone_number: '+493012345679',
      public_base_url: BASE,
    };
    const post = (payload: object) =>
      app.inject({
        method: 'POST',
        url: `/api/bots/${bot.id}/connections`,
        headers: tenant.owner.headers,
        payload,
      });
    const count = async () =>
      (
        await db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM channel_connections WHERE bot_id = $1',
          [bot.id],
        )
      )[0]!.n;

    // Wrong values are refused and nothing is stored.
    const zone = await post({ ...base, opening_hours: { time_zone: 'Mars/Olympus', days: {} } });
    expect(zone.statusCode).toBe(400);
    expect(zone.json().message).toContain('time_zone');
    const span = await post({
      ...base,
      opening_hours: { time_zone: 'Europe/Berlin', days: { mon: ['9-17'] } },
    });
    expect(span.statusCode).toBe(400);
    expect((await post({ ...base, language: 'es' })).statusCode).toBe(400);
    expect((await post({ ...base, max_call_seconds: 10 })).statusCode).toBe(400);
    const notVoice = await post({
      kind: 'twilio_sms',
      name: 'SMS',
      account_sid: base.account_sid,
      auth_token: AUTH_TOKEN,
      from_number: '+493012345670',
      greeting: 'Hallo',
    });
    expect(notVoice.statusCode).toBe(400);
    expect(notVoice.json()).toMatchObject({ code: 'field_unknown', details: { field: 'greeting' } });
    expect(await count()).toBe(0);

    // Defaults as the API shows them.
    const plain = await post(base);
    expect(plain.statusCode, plain.body).toBe(201);
    expect(plain.json()).toMatchObject({
      language: 'de',
      greeting: null,
      opening_hours: null,
      max_call_seconds: 600,
      calls_per_caller_per_hour: 5,
    });
    await app.inject({
      method: 'DELETE',
      url: `/api/bots/${bot.id}/connections/${plain.json().id}`,
      headers: tenant.owner.headers,
    });

    const hours = {
      time_zone: 'Europe/Berlin',
      days: { mon: ['09:00-12:00', '13:00-17:30'], sat: ['10:00-14:00'] },
    };
    const created = await post({
      ...base,
      language: 'en',
      greeting: 'Welcome to the dance studio, how can I help?',
      opening_hours: hours,
      max_call_seconds: 120,
      calls_per_caller_per_hour: 1,
    });
    expect(created.statusCode, created.body).toBe(201);
    const { id, webhook_url } = created.json();
    const listed = await app.inject({
      url: `/api/bots/${bot.id}/connections/${id}`,
      headers: tenant.owner.headers,
    });
    expect(listed.json()).toMatchObject({
      language: 'en',
      greeting: 'Welcome to the dance studio, how can I help?',
      opening_hours: hours,
      max_call_seconds: 120,
      calls_per_caller_per_hour: 1,
    });

    const call = (sid: string) => {
      const form = { CallSid: sid, From: '+491701112299', To: base.phone_number };
      return app.inject({
        method: 'POST',
        url: `/v1/channels/${id}/voice/incoming`,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-twilio-signature': twilio.getExpectedTwilioSignature(AUTH_TOKEN, webhook_url, form),
        },
        payload: new URLSearchParams(form).toString(),
      });
    };
    const first = await call(`CA${'4'.repeat(32)}`);
    expect(first.statusCode, first.body).toBe(200);
    const relay = checkTwiml(first.body).children[0]!.children[0]!;
    expect(relay.name).toBe('ConversationRelay');
    expect(relay.attributes).toMatchObject({
      language: 'en-US',
      welcomeGreeting: 'Welcome to the dance studio, how can I help?',
    });
    // One call per caller and hour: the second is told to try later and hung up.
    const second = await call(`CA${'5'.repeat(32)}`);
    expect(second.statusCode).toBe(200);
    expect(second.body).not.toContain('<ConversationRelay');
    expect(second.body).toContain('<Hangup');

    // A PATCH changes one setting and keeps the others; null clears the greeting.
    const patched = await app.inject({
      method: 'PATCH',
      url: `/api/bots/${bot.id}/connections/${id}`,
      headers: tenant.owner.headers,
      payload: { greeting: null, language: 'fr' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ greeting: null, language: 'fr', opening_hours: hours });
  });
});
