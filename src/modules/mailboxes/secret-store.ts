import { createHash } from 'node:crypto';
import { decryptSecret, encryptSecret, secretKeyring } from '../../shared/secrets.js';

/**
 * Tenant secrets of mailboxes at rest (passwords, client secrets): sealed by the shared
 * tenant-secret encryption (`shared/secrets.ts`: AES-256-GCM, key ids for rotation,
 * PARLEY_SECRET_KEY or the data directory's key file), with the purpose `mailbox` bound in, so a
 * mailbox secret cannot be passed off as another kind of secret.
 */
export interface SecretStore {
  encryptSecret(plain: string): string;
  decryptSecret(stored: string): string;
  /** A key for HMAC tags of one purpose (e.g. our Message-IDs), derived from the current key. */
  hmacKey(purpose: string): Buffer;
  /** The same purpose's keys derived from the other listed keys (rotation: tags made before). */
  previousHmacKeys(purpose: string): Buffer[];
}

const CONTEXT = 'mailbox';

const derive = (key: Buffer, purpose: string) => createHash('sha256').update(key).update(purpose).digest();

/** The secret store of a configuration (the keyring is loaded once per configuration). */
export function secretStoreFor(config: {
  secretKey: string | undefined;
  dataDir: string;
  databaseUrl: string | undefined;
}): SecretStore {
  const keyring = () => secretKeyring(config);
  return {
    encryptSecret: (plain) => encryptSecret(keyring(), plain, CONTEXT),
    decryptSecret: (stored) => decryptSecret(keyring(), stored, CONTEXT),
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
