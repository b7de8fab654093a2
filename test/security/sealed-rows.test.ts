import twilio from 'twilio';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { channelSecretsFor, resealConnectionSecrets } from '../../src/modules/messaging/secret-store.js';
import { enqueueEvent } from '../../src/modules/webhooks/outbox.js';
import { resealSigningSecrets, webhookSecretsFor } from '../../src/modules/webhooks/secret-box.js';
import { createWebhookWorker } from '../../src/modules/webhooks/sender.js';
import { rowSecretsFor } from '../../src/shared/sealed.js';
import {
  encryptSecret,
  generateSecretKey,
  secretKeyring,
  SecretDecryptError,
} from '../../src/shared/secrets.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { postMeta, metaPayload } from '../messaging/meta-helpers.js';
import {
  APP_SECRET,
  AUTH_TOKEN,
  SMS_CONNECTION,
  WHATSAPP_CONNECTION,
  addConnection,
} from '../messaging/setup.js';
import { legacySealedSecret, startReceiver, type Receiver } from '../webhooks/helpers.js';

const LEGACY_KEY = 'test-secrets-key-0123456789abcdef0123';

describeApp(
  'webhook signing secrets: on the PARLEY_SECRET_KEY keyring, bound to their endpoint and field',
  (get) => {
    let receiver: Receiver;
    beforeAll(async () => {
      receiver = await startReceiver();
    });
    afterAll(() => receiver.close());
    const worker = () => createWebhookWorker(get().ctx, { now: () => new Date(Date.now() + 1000) });

    async function register(tenant: TenantFixture, path: string) {
      const res = await get().app.inject({
        method: 'POST',
        url: '/api/webhooks',
        headers: tenant.owner.headers,
        payload: { url: `${receiver.url}/${path}`, event_types: ['lead.generated'] },
      });
      expect(res.statusCode).toBe(201);
      return res.json() as { webhook: { id: string }; secret: string };
    }
    const stored = async (id: string) =>
      (
        await get().db.query<{ secret: string; previous_secret: string | null; secrets_version: number }>(
          'SELECT secret, previous_secret, secrets_version FROM webhook_endpoints WHERE id = $1',
          [id],
        )
      )[0]!;
    const emit = (tenantId: string, data: object) =>
      get().db.transaction((tx) => enqueueEvent(tx, tenantId, 'lead.generated', data));

    it('a signing secret copied into another endpoint does not open there, and nothing is signed with it', async () => {
      const [ta, tb] = [await buildTenant(get().ctx), await buildTenant(get().ctx)];
      const a = await register(ta, 'copy-a');
      const b = await register(tb, 'copy-b');
      const copied = (await stored(a.webhook.id)).secret;
      expect(copied).toMatch(/^s1:/);
      await get().db.query('UPDATE webhook_endpoints SET secret = $2 WHERE id = $1', [b.webhook.id, copied]);
      const secrets = webhookSecretsFor(get().ctx.config);
      expect(() => secrets.open(copied, b.webhook.id, 'secret')).toThrow(SecretDecryptError);
      expect(() => secrets.open(copied, a.webhook.id, 'previous_secret')).toThrow(SecretDecryptError);
      expect(secrets.open(copied, a.webhook.id, 'secret')).toBe(a.secret);

      const before = receiver.received.length;
      await emit(tb.id, { x: 'copied' });
      const summary = await worker().sendDue();
      expect(summary.sent).toBe(0);
      expect(receiver.received.slice(before).some((r) => r.body.includes('copied'))).toBe(false);
      const [delivery] = await get().db.query<{ last_error: string | null }>(
        'SELECT last_error FROM webhook_delivery_log WHERE endpoint_id = $1',
        [b.webhook.id],
      );
      expect(delivery!.last_error).toMatch(/does not decrypt/);
    });

    it('re-seals secrets of the former forms (WEBHOOK_SECRETS_KEY, plain) once; their signatures still verify', async () => {
      const tenant = await buildTenant(get().ctx);
      const enc = await register(tenant, 'legacy-enc');
      const plain = await register(await buildTenant(get().ctx), 'legacy-plain');
      await get().db.query('UPDATE webhook_endpoints SET secret = $2, secrets_version = 1 WHERE id = $1', [
        enc.webhook.id,
        legacySealedSecret(LEGACY_KEY, enc.secret),
      ]);
      await get().db.query('UPDATE webhook_endpoints SET secret = $2, secrets_version = 1 WHERE id = $1', [
        plain.webhook.id,
        plain.secret,
      ]);
      const secrets = rowSecretsFor(get().ctx.config);
      // Without the former key the encrypted one cannot be opened: reported, left as it is.
      const withoutKey = await resealSigningSecrets(get().db, secrets, undefined);
      expect(withoutKey.failed).toContain(enc.webhook.id);
      expect((await stored(enc.webhook.id)).secrets_version).toBe(1);

      const first = await resealSigningSecrets(get().db, secrets, LEGACY_KEY);
      expect(first.failed).toEqual([]);
      expect(first.resealed).toBeGreaterThanOrEqual(1);
      for (const { webhook, secret } of [enc, plain]) {
        const row = await stored(webhook.id);
        expect(row.secrets_version).toBe(2);
        expect(row.secret).toMatch(/^s1:/);
        expect(webhookSecretsFor(get().ctx.config).open(row.secret, webhook.id, 'secret')).toBe(secret);
      }
      expect(await resealSigningSecrets(get().db, secrets, LEGACY_KEY)).toEqual({ resealed: 0, failed: [] });

      // The re-sealed secret signs as before: the receiver verifies with the secret it was given.
      const before = receiver.received.length;
      await emit(tenant.id, { legacy: 'enc' });
      expect((await worker().sendDue()).sent).toBeGreaterThanOrEqual(1);
      const request = receiver.received.slice(before).find((r) => r.body.includes('"legacy":"enc"'))!;
      const payload = new Webhook(enc.secret).verify(request.body, {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      });
      expect(payload).toMatchObject({ data: { legacy: 'enc' } });

      // A rotation keeps the former secret signing during the grace period, sealed for its field.
      const rotated = await get().app.inject({
        method: 'POST',
        url: `/api/webhooks/${enc.webhook.id}/rotate-secret`,
        headers: tenant.owner.headers,
      });
      expect(rotated.statusCode).toBe(200);
      const row = await stored(enc.webhook.id);
      const box = webhookSecretsFor(get().ctx.config);
      expect(box.open(row.previous_secret!, enc.webhook.id, 'previous_secret')).toBe(enc.secret);
      expect(() => box.open(row.previous_secret!, enc.webhook.id, 'secret')).toThrow(SecretDecryptError);
      const after = receiver.received.length;
      await emit(tenant.id, { legacy: 'rotated' });
      expect((await worker().sendDue()).sent).toBeGreaterThanOrEqual(1);
      const signed = receiver.received.slice(after).find((r) => r.body.includes('"legacy":"rotated"'))!;
      for (const secret of [enc.secret, (rotated.json() as { secret: string }).secret]) {
        expect(
          new Webhook(secret).verify(signed.body, {
            'webhook-id': String(signed.headers['webhook-id']),
            'webhook-timestamp': String(signed.headers['webhook-timestamp']),
            'webhook-signature': String(signed.headers['webhook-signature']),
          }),
        ).toMatchObject({ data: { legacy: 'rotated' } });
      }
    });

    it('after a key rotation (new key listed first) re-seals under the new key; the old one still opens before', async () => {
      const a = await register(await buildTenant(get().ctx), 'rotation');
      const config = get().ctx.config;
      const rotated = { ...config, secretKey: `${generateSecretKey('next')},${config.secretKey}` };
      const before = await stored(a.webhook.id);
      // All listed keys decrypt: the value sealed under the former first key opens.
      expect(webhookSecretsFor(rotated).open(before.secret, a.webhook.id, 'secret')).toBe(a.secret);
      const result = await resealSigningSecrets(get().db, rowSecretsFor(rotated), undefined);
      expect(result.resealed).toBeGreaterThanOrEqual(1);
      const after = await stored(a.webhook.id);
      expect(after.secret.split(':')[1]).toBe('next');
      expect(webhookSecretsFor(rotated).open(after.secret, a.webhook.id, 'secret')).toBe(a.secret);
      // An instance that only knows the former key cannot open it (deploy the key list first).
      expect(() => webhookSecretsFor(config).open(after.secret, a.webhook.id, 'secret')).toThrow(
        SecretDecryptError,
      );
      await get().db.query('DELETE FROM webhook_endpoints WHERE id = $1', [a.webhook.id]);
    });
  },
  { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_SECRETS_KEY: LEGACY_KEY } },
);

describeApp('channel connection secrets are bound to their connection and field', (get) => {
  async function twoConnections(payload: object) {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const a = await addConnection(get().app, tenant, bot.id, payload);
    const b = await addConnection(get().app, tenant, bot.id, payload);
    return { a, b };
  }
  const secretsOf = async (id: string) =>
    (
      await get().db.query<{ id: string; secrets: Record<string, string>; secrets_version: number }>(
        'SELECT id, secrets, secrets_version FROM channel_connections WHERE id = $1',
        [id],
      )
    )[0]!;
  const copy = (from: string, to: string, field: string) =>
    get().db.query(
      `UPDATE channel_connections SET secrets = jsonb_set(secrets, ARRAY[$3::text],
         (SELECT secrets -> $3::text FROM channel_connections WHERE id = $2)) WHERE id = $1`,
      [to, from, field],
    );

  it('Meta: an app secret copied into another connection does not open; its webhook refuses the copy (401)', async () => {
    const { a, b } = await twoConnections(WHATSAPP_CONNECTION);
    await copy(a.id, b.id, 'app_secret');
    const raw = JSON.stringify(metaPayload(WHATSAPP_CONNECTION.phone_number_id, { messages: [] }));
    expect((await postMeta(get().app, b.id, raw, APP_SECRET)).statusCode).toBe(401);
    expect((await postMeta(get().app, a.id, raw, APP_SECRET)).statusCode).toBe(200);
    const secrets = channelSecretsFor(get().ctx.config);
    const rowB = await secretsOf(b.id);
    expect(() => secrets.open(rowB, 'app_secret')).toThrow(SecretDecryptError);
    // Within one row, a value moved to another field does not open either.
    const rowA = await secretsOf(a.id);
    expect(() =>
      secrets.open({ id: a.id, secrets: { verify_token: rowA.secrets.app_secret } }, 'verify_token'),
    ).toThrow(SecretDecryptError);
    expect(secrets.open(rowA, 'app_secret')).toBe(APP_SECRET);
  });

  it('Twilio: an auth token copied into another connection does not open; its webhooks refuse the copy (403)', async () => {
    const { a, b } = await twoConnections(SMS_CONNECTION);
    await copy(a.id, b.id, 'auth_token');
    const params = { MessageSid: 'SM' + '2'.padStart(32, '0'), MessageStatus: 'delivered' };
    const post = (conn: { status_callback_url: string | null }) =>
      get().app.inject({
        method: 'POST',
        url: conn.status_callback_url!.slice(conn.status_callback_url!.indexOf('/v1/channels/')),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-twilio-signature': twilio.getExpectedTwilioSignature(
            AUTH_TOKEN,
            conn.status_callback_url!,
            params,
          ),
        },
        payload: new URLSearchParams(params).toString(),
      });
    expect((await post(b)).statusCode).toBe(403);
    expect((await post(a)).statusCode).toBe(200);
  });

  it('re-seals secrets sealed for the purpose only (version 1) once, bound to row and field', async () => {
    const { a } = await twoConnections(SMS_CONNECTION);
    const legacy = {
      auth_token: encryptSecret(secretKeyring(get().ctx.config), 'legacy-token', 'channel-connection'),
    };
    await get().db.query('UPDATE channel_connections SET secrets = $2, secrets_version = 1 WHERE id = $1', [
      a.id,
      legacy,
    ]);
    const secrets = channelSecretsFor(get().ctx.config);
    expect(() => secrets.open({ id: a.id, secrets: legacy }, 'auth_token')).toThrow(SecretDecryptError);
    const first = await resealConnectionSecrets(get().db, rowSecretsFor(get().ctx.config));
    expect(first.failed).toEqual([]);
    expect(first.resealed).toBeGreaterThanOrEqual(1);
    const row = await secretsOf(a.id);
    expect(row.secrets_version).toBe(2);
    expect(secrets.open(row, 'auth_token')).toBe('legacy-token');
    expect(await resealConnectionSecrets(get().db, rowSecretsFor(get().ctx.config))).toEqual({
      resealed: 0,
      failed: [],
    });
  });
});
