import { createDecipheriv, createHash } from 'node:crypto';
import type { Queryable } from '../../db/database.js';
import {
  BOUND_SECRETS_VERSION,
  resealRows,
  rowSecretsFor,
  type KeyConfig,
  type ResealTable,
  type RowSecrets,
} from '../../shared/sealed.js';
import { SecretDecryptError } from '../../shared/secrets.js';
import { endpointsToReseal, storeResealedEndpoint, type SealedEndpointRow } from './repository.js';

const LEGACY_PREFIX = 'enc1:';
export const ENDPOINT_TABLE = 'webhook_endpoints';
export type SigningSecretField = 'secret' | 'previous_secret';

/**
 * Storage form of endpoint signing secrets. Signing needs the plain secret, so it cannot be
 * hashed like an API key: it is sealed like every tenant secret (shared/sealed.ts: AES-256-GCM
 * under PARLEY_SECRET_KEY, key ids for rotation) with table, row and field bound in
 * (`webhook_endpoints:<id>:secret` or `…:previous_secret`), so a value copied into another
 * endpoint does not open.
 */
export interface WebhookSecrets {
  seal(plain: string, endpointId: string, field: SigningSecretField): string;
  open(stored: string, endpointId: string, field: SigningSecretField): string;
}

export function webhookSecretsFor(config: KeyConfig): WebhookSecrets {
  const secrets = rowSecretsFor(config);
  return {
    seal: (plain, rowId, field) => secrets.seal(plain, { table: ENDPOINT_TABLE, rowId, field }),
    open: (stored, rowId, field) => secrets.open(stored, { table: ENDPOINT_TABLE, rowId, field }),
  };
}

/**
 * Opens a signing secret stored before the binding (version 1): as it is, or, with the former
 * WEBHOOK_SECRETS_KEY, encrypted as `enc1:<iv>:<tag>:<ciphertext>` (base64). Only the
 * start-up re-seal reads this form.
 */
export function openLegacySigningSecret(stored: string, legacyKey: string | undefined): string {
  if (!stored.startsWith(LEGACY_PREFIX)) {
    if (stored.startsWith('s1:')) throw new SecretDecryptError('not a signing secret of the former form');
    return stored;
  }
  if (legacyKey === undefined)
    throw new SecretDecryptError('signing secret is encrypted but WEBHOOK_SECRETS_KEY is not set');
  const key = createHash('sha256').update(legacyKey).digest();
  const [iv, tag, ciphertext] = stored
    .slice(LEGACY_PREFIX.length)
    .split(':')
    .map((part) => Buffer.from(part, 'base64'));
  if (!iv || !tag || !ciphertext) throw new SecretDecryptError('stored signing secret is malformed');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretDecryptError(
      'signing secret cannot be decrypted with the configured WEBHOOK_SECRETS_KEY',
    );
  }
}

/** Re-seals signing secrets of the former form or under another key (start-up). */
export function resealSigningSecrets(
  db: Queryable,
  secrets: RowSecrets,
  legacyKey: string | undefined,
): Promise<{ resealed: number; failed: string[] }> {
  const table: ResealTable<SealedEndpointRow> = {
    table: ENDPOINT_TABLE,
    candidates: endpointsToReseal,
    values: (row) => ({
      secret: row.secret,
      ...(row.previous_secret === null ? {} : { previous_secret: row.previous_secret }),
    }),
    openStored: (row, field, stored) =>
      row.secrets_version < BOUND_SECRETS_VERSION
        ? openLegacySigningSecret(stored, legacyKey)
        : secrets.open(stored, { table: ENDPOINT_TABLE, rowId: row.id, field }),
    store: storeResealedEndpoint,
  };
  return resealRows(db, secrets, table);
}
