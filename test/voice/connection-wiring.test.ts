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
});
