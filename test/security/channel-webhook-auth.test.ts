import { randomInt } from 'node:crypto';
import { connect } from 'node:net';
import twilio from 'twilio';
import { expect, it } from 'vitest';
import { checkProviderUrl } from '../../src/modules/messaging/guards.js';
import { checkOutboundUrl } from '../../src/shared/outbound.js';
import { TargetRefusedError } from '../../src/shared/ssrf.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { metaPayload, signMeta } from '../messaging/meta-helpers.js';
import {
  APP_SECRET,
  AUTH_TOKEN,
  SMS_CONNECTION,
  WHATSAPP_CONNECTION,
  addConnection,
} from '../messaging/setup.js';

/** A client address of its own per test (the Redis counters outlive a run). */
const address = () => `198.51.${randomInt(0, 255)}.${randomInt(1, 255)}`;

/** Sends the head and a little of a large announced body, and returns the answer's status line. */
async function statusBeforeBody(port: number, head: string, prefix: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(text);
    }, 3000);
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
      if (text.includes('\r\n')) {
        clearTimeout(timer);
        socket.destroy();
        resolve(text.split('\r\n')[0]!);
      }
    });
    socket.write(head + prefix);
  });
}

describeApp(
  'channel webhooks: throttled failures, body caps before authentication, provider hosts',
  (get) => {
    async function connection(payload: object) {
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      return { tenant, bot, conn: await addConnection(get().app, tenant, bot.id, payload) };
    }

    it('Meta: ten badly signed webhooks are 401, then 429 with Retry-After for that address only', async () => {
      const { conn } = await connection(WHATSAPP_CONNECTION);
      const raw = JSON.stringify(metaPayload(WHATSAPP_CONNECTION.phone_number_id, { messages: [] }));
      const send = (secret: string, from: string) =>
        get().app.inject({
          method: 'POST',
          url: `/v1/channels/${conn.id}/webhook`,
          remoteAddress: from,
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': signMeta(raw, secret) },
          payload: raw,
        });
      const guesser = address();
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) statuses.push((await send('guessed-secret', guesser)).statusCode);
      expect(statuses).toEqual([...Array(10).fill(401), 429]);
      const locked = await send(APP_SECRET, guesser);
      expect(locked.statusCode).toBe(429);
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      expect((await send(APP_SECRET, address())).statusCode).toBe(200);
    });

    it('Twilio: ten forged status callbacks are 403, then 429 with Retry-After; other addresses go on', async () => {
      const { conn } = await connection(SMS_CONNECTION);
      const url = conn.status_callback_url!;
      const params = { MessageSid: 'SM' + '3'.padStart(32, '0'), MessageStatus: 'delivered' };
      const send = (token: string, from: string) =>
        get().app.inject({
          method: 'POST',
          url: url.slice(url.indexOf('/v1/channels/')),
          remoteAddress: from,
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'x-twilio-signature': twilio.getExpectedTwilioSignature(token, url, params),
          },
          payload: new URLSearchParams(params).toString(),
        });
      const guesser = address();
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) statuses.push((await send('guessed-token', guesser)).statusCode);
      expect(statuses).toEqual([...Array(10).fill(403), 429]);
      const locked = await send(AUTH_TOKEN, guesser);
      expect(locked.statusCode).toBe(429);
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      expect((await send(AUTH_TOKEN, address())).statusCode).toBe(200);
    });

    it('refuses a body above the provider cap with 413 before it is read (Meta 1 MB, Twilio 64 KB)', async () => {
      const meta = (await connection(WHATSAPP_CONNECTION)).conn;
      const sms = (await connection(SMS_CONNECTION)).conn;
      const port = await get()
        .app.listen({ port: 0, host: '127.0.0.1' })
        .then((at) => Number(new URL(at).port));
      const head = (id: string, type: string, length: number, signature: string) =>
        `POST /v1/channels/${id}/webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\n` +
        `${signature}\r\nContent-Length: ${length}\r\n\r\n`;
      // Announced 2 MB (Meta) and 100 KB (Twilio), 1 KB sent: the answer comes without the rest.
      expect(
        await statusBeforeBody(
          port,
          head(meta.id, 'application/json', 2 * 1024 * 1024, 'X-Hub-Signature-256: sha256=00'),
          `{"x":"${'x'.repeat(1024)}`,
        ),
      ).toMatch(/^HTTP\/1\.1 413 /);
      expect(
        await statusBeforeBody(
          port,
          head(sms.id, 'application/x-www-form-urlencoded', 100 * 1024, 'X-Twilio-Signature: forged'),
          `Body=${'x'.repeat(1024)}`,
        ),
      ).toMatch(/^HTTP\/1\.1 413 /);
      // Just below Twilio's cap, the same forged request reaches the signature check.
      const below = await get().app.inject({
        method: 'POST',
        url: `/v1/channels/${sms.id}/webhook`,
        remoteAddress: address(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'forged' },
        payload: `Body=${'x'.repeat(60 * 1024)}`,
      });
      expect(below.statusCode).toBe(403);
    });

    it('a tenant cannot name a provider host: base-URL fields are refused and nothing is stored', async () => {
      const { tenant, bot } = await connection(SMS_CONNECTION);
      for (const [field, payload] of [
        ['graph_base_url', { ...WHATSAPP_CONNECTION, graph_base_url: 'http://127.0.0.1:9' }],
        ['api_base_url', { ...SMS_CONNECTION, api_base_url: 'http://127.0.0.1:9' }],
      ] as const) {
        const res = await get().app.inject({
          method: 'POST',
          url: `/api/bots/${bot.id}/connections`,
          headers: tenant.owner.headers,
          payload,
        });
        expect(res.statusCode, field).toBe(400);
      }
      const [{ n }] = (await get().db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM channel_connections WHERE bot_id = $1',
        [bot.id],
      )) as [{ n: number }];
      expect(n).toBe(1);
    });
  },
);

it('the outbound guard refuses loopback provider base URLs; tenant path segments cannot move a provider request', async () => {
  const policy = { allowPrivate: false };
  for (const url of [
    'http://127.0.0.1:9/v23.0',
    'https://127.0.0.1/',
    'https://localhost/',
    'https://[::1]/',
  ])
    await expect(checkOutboundUrl(url, policy), url).rejects.toBeInstanceOf(TargetRefusedError);
  const base = 'https://graph.facebook.com/v23.0';
  // whatsapp.ts encodes the phone number id; an unencoded one naming another host is refused.
  expect(() => checkProviderUrl(`${base}/${encodeURIComponent('@127.0.0.1')}/messages`, base)).not.toThrow();
  expect(() => checkProviderUrl('https://127.0.0.1/v23.0/1/messages', base)).toThrow(
    /not the configured one/,
  );
  expect(() => checkProviderUrl('file:///etc/passwd', base)).toThrow(/protocol/);
});
