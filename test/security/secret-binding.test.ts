import { expect, it } from 'vitest';
import { openSecret, secretStoreFor } from '../../src/modules/mailboxes/secret-store.js';
import { resealMailboxSecrets } from '../../src/modules/mailboxes/service.js';
import { encryptSecret, secretKeyring, SecretDecryptError } from '../../src/shared/secrets.js';
import { rowSecretsFor } from '../../src/shared/sealed.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { addMailbox, POSTMARK_MAILBOX } from '../email/mailbox-setup.js';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describeApp('mailbox secrets are bound to their row and field', (get) => {
  async function twoMailboxes() {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const a = await addMailbox(get().app, tenant, bot.id, {
      ...POSTMARK_MAILBOX,
      secrets: { ...POSTMARK_MAILBOX.secrets, inbound_password: 'password-of-mailbox-a' },
    });
    const b = await addMailbox(get().app, tenant, bot.id, {
      ...POSTMARK_MAILBOX,
      address: 'other@example.test',
      secrets: { ...POSTMARK_MAILBOX.secrets, inbound_password: 'password-of-mailbox-b' },
    });
    return { a, b };
  }
  const secretsOf = async (id: string) =>
    (
      await get().db.query<{ id: string; secrets: Record<string, string>; secrets_version: number }>(
        'SELECT id, secrets, secrets_version FROM mailboxes WHERE id = $1',
        [id],
      )
    )[0]!;

  it('a sealed value copied into another mailbox or another field does not open there', async () => {
    const { a, b } = await twoMailboxes();
    const rowA = await secretsOf(a);
    expect(rowA.secrets_version).toBe(2);
    // A's inbound password copied into B's row: B's inbound URL does not take A's password.
    await get().db.query(
      `UPDATE mailboxes SET secrets = jsonb_set(secrets, '{inbound_password}', to_jsonb($2::text)) WHERE id = $1`,
      [b, rowA.secrets.inbound_password],
    );
    const copied = await get().app.inject({
      method: 'POST',
      url: `/v1/email/inbound/postmark/${b}`,
      headers: { authorization: basic('pm', 'password-of-mailbox-a') },
      payload: {},
    });
    expect(copied.statusCode).toBe(401);
    const own = await get().app.inject({
      method: 'POST',
      url: `/v1/email/inbound/postmark/${a}`,
      headers: { authorization: basic('pm', 'password-of-mailbox-a') },
      payload: { From: 'x@kunde.example', Headers: [{ Name: 'Auto-Submitted', Value: 'auto-replied' }] },
    });
    expect(own.statusCode).toBe(200);

    const store = secretStoreFor(get().ctx.config);
    const rowB = await secretsOf(b);
    expect(() => openSecret(store, rowB, 'inbound_password')).toThrow(SecretDecryptError);
    // Within one row, a value moved to another field does not open either.
    expect(() =>
      store.decryptSecret(rowA.secrets.password!, { mailboxId: a, field: 'inbound_password' }),
    ).toThrow(SecretDecryptError);
    expect(openSecret(store, rowA, 'password')).toBe(POSTMARK_MAILBOX.secrets.password);
  });

  it('re-seals secrets sealed before the binding once, at start-up', async () => {
    const { a } = await twoMailboxes();
    const keyring = secretKeyring(get().ctx.config);
    // The form before the binding: associated data `mailbox` only, secrets_version 1.
    const legacy = {
      inbound_password: encryptSecret(keyring, 'legacy-inbound-password', 'mailbox'),
      password: encryptSecret(keyring, 'legacy-smtp-password', 'mailbox'),
    };
    await get().db.query('UPDATE mailboxes SET secrets = $2, secrets_version = 1 WHERE id = $1', [a, legacy]);
    const store = secretStoreFor(get().ctx.config);
    expect(() => openSecret(store, { id: a, secrets: legacy }, 'password')).toThrow(SecretDecryptError);

    const first = await resealMailboxSecrets(get().db, rowSecretsFor(get().ctx.config));
    expect(first.resealed).toBeGreaterThanOrEqual(1);
    expect(first.failed).toEqual([]);
    const row = await secretsOf(a);
    expect(row.secrets_version).toBe(2);
    expect(row.secrets.password).not.toBe(legacy.password);
    expect(openSecret(store, row, 'password')).toBe('legacy-smtp-password');
    expect(openSecret(store, row, 'inbound_password')).toBe('legacy-inbound-password');
    expect(await resealMailboxSecrets(get().db, rowSecretsFor(get().ctx.config))).toEqual({
      resealed: 0,
      failed: [],
    });
    const delivered = await get().app.inject({
      method: 'POST',
      url: `/v1/email/inbound/postmark/${a}`,
      headers: { authorization: basic('pm', 'legacy-inbound-password') },
      payload: { From: 'x@kunde.example', Headers: [{ Name: 'Auto-Submitted', Value: 'auto-replied' }] },
    });
    expect(delivered.statusCode).toBe(200);
  });
});
