import { randomUUID } from 'node:crypto';
import twilio from 'twilio';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import type { ModelProvider, ModelReply } from '../../src/modules/models/provider.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { startFakeProviders, type FakeProviders } from './fake-providers.js';
import {
  ACCOUNT_SID,
  AUTH_TOKEN,
  SMS_CONNECTION,
  TWILIO_WHATSAPP_CONNECTION,
  addConnection,
} from './setup.js';

let fake: FakeProviders;
beforeAll(async () => {
  fake = await startFakeProviders({ meta: '', twilio: { sid: ACCOUNT_SID, token: AUTH_TOKEN } });
});
afterAll(() => fake?.close());
// Every request Parley sent matched the provider's published schema.
afterEach(() => expect(fake.schemaViolations).toEqual([]));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function stubModel(text: string): ModelProvider {
  const reply: ModelReply = { text, model: 'stub', promptTokens: 1, completionTokens: 1 };
  return {
    name: 'stub',
    generate: async () => reply,
    async *stream() {
      yield { type: 'delta' as const, text };
      yield { type: 'done' as const, reply };
    },
  };
}

describeApp('Twilio SMS and WhatsApp (official library against a local Messages API)', (get) => {
  let customer = '';
  let conn: { id: string; webhook_url: string; status_callback_url: string | null };
  let botId = '';
  let tenantHeaders: Record<string, string> = {};

  beforeEach(async () => {
    get().ctx.config.messaging.twilioApiBaseUrl = fake.url;
    fake.reset();
    const tenant = await buildTenant(get().ctx);
    tenantHeaders = tenant.owner.headers;
    botId = (await tenant.bot()).id;
    conn = await addConnection(get().app, tenant, botId, { ...SMS_CONNECTION, quiet_window_ms: 100 });
    customer = `+4917${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
  });

  const form = (body: string, extra: Record<string, string> = {}) => ({
    MessageSid: `SM${randomUUID().replace(/-/g, '')}`,
    AccountSid: ACCOUNT_SID,
    From: customer,
    To: SMS_CONNECTION.from_number,
    Body: body,
    NumMedia: '0',
    ...extra,
  });

  function post(url: string, params: Record<string, string>, signature?: string) {
    const path = url.slice(url.indexOf('/v1/channels/'));
    return get().app.inject({
      method: 'POST',
      url: path,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': signature ?? twilio.getExpectedTwilioSignature(AUTH_TOKEN, url, params),
      },
      payload: new URLSearchParams(params).toString(),
    });
  }
  const toCustomer = () => fake.messages('twilio').filter((r) => r.body.To === customer);

  it('validates X-Twilio-Signature against the connection’s public URL: one changed byte, wrong URL, wrong port → 403', async () => {
    const params = form('Hallo');
    expect(conn.webhook_url).toBe(`https://parley.example.test:8443/base/v1/channels/${conn.id}/webhook`);
    const good = twilio.getExpectedTwilioSignature(AUTH_TOKEN, conn.webhook_url, params);
    const cases: [string, Record<string, string>, string][] = [
      ['one byte changed', { ...params, Body: 'Hallp' }, good],
      [
        'wrong URL',
        params,
        twilio.getExpectedTwilioSignature(AUTH_TOKEN, conn.webhook_url.replace('/base', ''), params),
      ],
      [
        'wrong port',
        params,
        twilio.getExpectedTwilioSignature(AUTH_TOKEN, conn.webhook_url.replace(':8443', ':9443'), params),
      ],
      ['wrong token', params, twilio.getExpectedTwilioSignature('another-token', conn.webhook_url, params)],
      ['empty signature', params, ''],
    ];
    for (const [name, body, signature] of cases) {
      const res = await post(conn.webhook_url, body, signature);
      expect(res.statusCode, name).toBe(403);
    }
    const unsigned = await get().app.inject({
      method: 'POST',
      url: conn.webhook_url.slice(conn.webhook_url.indexOf('/v1/')),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(params).toString(),
    });
    expect(unsigned.statusCode).toBe(401);
    const [none] = await get().db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM channel_inbound WHERE connection_id = $1',
      [conn.id],
    );
    expect(none!.n).toBe(0);
    const ok = await post(conn.webhook_url, params, good);
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('<Response>');
    // A replayed request (same MessageSid) is stored and answered once.
    expect((await post(conn.webhook_url, params, good)).statusCode).toBe(200);
    await vi.waitUntil(() => toCustomer().length >= 1, { timeout: 10_000, interval: 50 });
    await sleep(500);
    expect(toCustomer()).toHaveLength(1);
    expect(toCustomer()[0]!.body).toMatchObject({ From: SMS_CONNECTION.from_number, To: customer });
    expect(String(toCustomer()[0]!.body.StatusCallback)).toMatch(
      new RegExp(`^https://parley.example.test:8443/base/v1/channels/${conn.id}/status\\?o=`),
    );
  });

  it('sends an answer of 3,000 characters as two numbered SMS; the status callback settles it', async () => {
    const { ctx, db } = get();
    const sentence = 'Unsere Öffnungszeiten sind Montag bis Freitag von neun bis achtzehn Uhr. ';
    const long = sentence.repeat(Math.ceil(3000 / sentence.length)).slice(0, 3000);
    const previous = ctx.model;
    ctx.model = stubModel(long);
    try {
      expect((await post(conn.webhook_url, form('Wann habt ihr offen?'))).statusCode).toBe(200);
      await vi.waitUntil(() => toCustomer().length >= 2, { timeout: 10_000, interval: 50 });
    } finally {
      ctx.model = previous;
    }
    const bodies = toCustomer().map((r) => String(r.body.Body));
    expect(bodies).toHaveLength(2);
    expect(bodies[0]!.startsWith('(1/2) ')).toBe(true);
    expect(bodies[1]!.startsWith('(2/2) ')).toBe(true);
    expect(bodies.every((b) => [...b].length <= 1600)).toBe(true);
    const callback = String(toCustomer()[0]!.body.StatusCallback);
    const outboundId = new URL(callback).searchParams.get('o')!;
    const status = {
      MessageSid: 'SM' + '1'.padStart(32, '0'),
      MessageStatus: 'delivered',
      AccountSid: ACCOUNT_SID,
    };
    expect((await post(callback, status)).statusCode).toBe(200);
    expect((await post(callback, status, 'forged')).statusCode).toBe(403);
    const [row] = await db.query<{ status: string }>('SELECT status FROM channel_outbound WHERE id = $1', [
      outboundId,
    ]);
    expect(row!.status).toBe('delivered');
  });

  it('STOP (and ABMELDEN …) confirms, then blocks outbound until START; 21610 marks the number opted out', async () => {
    const { db, app } = get();
    await post(conn.webhook_url, form('ABMELDEN'));
    await vi.waitUntil(() => toCustomer().length >= 1, { timeout: 10_000, interval: 50 });
    expect(String(toCustomer()[0]!.body.Body)).toContain('abgemeldet');
    await post(conn.webhook_url, form('Hallo, noch da?'));
    await sleep(800);
    expect(toCustomer()).toHaveLength(1);
    const [skipped] = await db.query<{ status: string; skip_reason: string; conversation_id: string | null }>(
      `SELECT status, skip_reason, conversation_id FROM channel_inbound WHERE connection_id = $1 AND text = 'Hallo, noch da?'`,
      [conn.id],
    );
    expect(skipped).toMatchObject({ status: 'skipped', skip_reason: 'opted_out' });
    // The engine kept the refusal once, in its own place, with the customer's words.
    const refusals = await db.query<{ channel: string; guard: string; message_excerpt: string }>(
      `SELECT channel, guard, message_excerpt FROM conversation_refusals
       WHERE sender_id = $1 AND message_excerpt = 'Hallo, noch da?'`,
      [customer],
    );
    expect(refusals).toEqual([
      { channel: 'sms', guard: 'messaging_opt_out', message_excerpt: 'Hallo, noch da?' },
    ]);
    await post(conn.webhook_url, form('START'));
    await vi.waitUntil(() => toCustomer().length >= 2, { timeout: 10_000, interval: 50 });
    await post(conn.webhook_url, form('Jetzt wieder?'));
    await vi.waitUntil(() => toCustomer().length >= 3, { timeout: 10_000, interval: 50 });

    // Twilio refuses with 21610: the number counts as opted out from then on.
    fake.failNext('twilio', {
      status: 400,
      code: 21610,
      message: 'Attempt to send to unsubscribed recipient',
    });
    await post(conn.webhook_url, form('Und noch eine Frage'));
    await vi.waitUntil(
      async () =>
        (await db.query('SELECT 1 FROM channel_opt_outs WHERE connection_id = $1', [conn.id])).length === 1,
      { timeout: 10_000, interval: 50 },
    );
    const list = await app.inject({
      method: 'GET',
      url: `/api/bots/${botId}/connections`,
      headers: tenantHeaders,
    });
    expect(list.json().data[0].health.error_counts).toEqual([expect.objectContaining({ code: '21610' })]);
  });

  it('Twilio WhatsApp: whatsapp: addresses; outside the window 63016 is refused in words', async () => {
    const { app, db } = get();
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const wa = await addConnection(app, tenant, bot.id, {
      ...TWILIO_WHATSAPP_CONNECTION,
      quiet_window_ms: 0,
    });
    const params = {
      ...form('Hallo'),
      From: `whatsapp:${customer}`,
      To: `whatsapp:${SMS_CONNECTION.from_number}`,
    };
    expect((await post(wa.webhook_url, params)).statusCode).toBe(200);
    await vi.waitUntil(() => fake.messages('twilio').some((r) => r.body.To === `whatsapp:${customer}`), {
      timeout: 10_000,
      interval: 50,
    });
    const sent = fake.messages('twilio').find((r) => r.body.To === `whatsapp:${customer}`)!;
    expect(sent.body.From).toBe(`whatsapp:${SMS_CONNECTION.from_number}`);

    fake.failNext('twilio', { status: 400, code: 63016, message: 'outside the allowed window' });
    expect(
      (await post(wa.webhook_url, { ...params, MessageSid: `SM${randomUUID().replace(/-/g, '')}` }))
        .statusCode,
    ).toBe(200);
    await vi.waitUntil(
      async () =>
        (
          await db.query<{ status: string }>(
            `SELECT status FROM channel_outbound WHERE connection_id = $1 AND error_code = '63016'`,
            [wa.id],
          )
        ).length === 1,
      { timeout: 10_000, interval: 50 },
    );
    const [row] = await db.query<{ error_text: string }>(
      `SELECT error_text FROM channel_outbound WHERE connection_id = $1 AND error_code = '63016'`,
      [wa.id],
    );
    expect(row!.error_text).toMatch(/^Das 24-Stunden-Fenster ist geschlossen/);
  });
});
