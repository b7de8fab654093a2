import { createHash } from 'node:crypto';
import { bindingContext } from '../../shared/sealed.js';
import { decryptSecret, encryptSecret, secretKeyring } from '../../shared/secrets.js';

/**
 * Tenant secrets of mailboxes at rest (passwords, client secrets): sealed by the shared
 * tenant-secret encryption (`shared/secrets.ts`: AES-256-GCM, key ids for rotation,
 * PARLEY_SECRET_KEY or the data directory's key file). Each value is bound to its row and field
 * as associated data (`mailboxes:<mailbox id>:<field>`), so a sealed value copied into another
 * mailbox, or into another field of the same one, does not open.
 *
 * Values sealed before this binding (associated data `mailbox` only; the row's
 * `secrets_version` 1), or under a key other than the current one, are re-sealed at start-up by
 * `resealMailboxSecrets` (service.ts, through `shared/sealed.ts`): a SQL migration cannot
 * decrypt, so migration 0037 only adds the version marker.
 */
export interface SecretBinding {
  mailboxId: string;
  field: string;
}

export interface SecretStore {
  encryptSecret(plain: string, binding: SecretBinding): string;
  decryptSecret(stored: string, binding: SecretBinding): string;
  /** A key for HMAC tags of one purpose (e.g. our Message-IDs), derived from the current key. */
  hmacKey(purpose: string): Buffer;
  /** The same purpose's keys derived from the other listed keys (rotation: tags made before). */
  previousHmacKeys(purpose: string): Buffer[];
}

/** The associated data of version 1 (purpose only). */
export const UNBOUND_CONTEXT = 'mailbox';

export const secretContext = (binding: SecretBinding) =>
  bindingContext({ table: 'mailboxes', rowId: binding.mailboxId, field: binding.field });

/** The stored secret `field` of a mailbox, opened (an absent one is the empty string). */
export function openSecret(
  store: SecretStore,
  mailbox: { id: string; secrets: Record<string, string | undefined> },
  field: string,
): string {
  const stored = mailbox.secrets[field];
  return stored ? store.decryptSecret(stored, { mailboxId: mailbox.id, field }) : '';
}

const derive = (key: Buffer, purpose: string) => createHash('sha256').update(key).update(purpose).digest();

/** The secret store of a configuration (the keyring is loaded once per configuration). */
export function secretStoreFor(config: {
  secretKey: string | undefined;
  dataDir: string;
  databaseUrl: string | undefined;
}): SecretStore {
  const keyring = () => secretKeyring(config);
  return {
    encryptSecret: (plain, binding) => encryptSecret(keyring(), plain, secretContext(binding)),
    decryptSecret: (stored, binding) => decryptSecret(keyring(), stored, secretContext(binding)),
    hmacKey(purpose) {
      const { currentId, keys } = keyring();
      return derive(keys.get(currentId)!, purpose);
    },
    previousHmacKeys(purpose) {
      const { currentId, keys } = keyring();
      return [...keys].filter(([id]) => id !== currentId).map(([, key]) => derive(key, purpose));
    },
  };
}
