import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Tenant secrets at rest (mailbox passwords, client secrets): AES-256-GCM under a key from
 * configuration (PARLEY_SECRET_KEY), or on the embedded default a key file generated in the
 * data directory (mode 0600). The stored form names the key it was sealed with
 * (`v1:<key id>:<iv>:<tag>:<ciphertext>`), so an old value stays readable after a rotation
 * as long as its key is still given (PARLEY_SECRET_KEY may list several keys, newest first,
 * separated by commas).
 */
export interface SecretStore {
  encryptSecret(plain: string): string;
  decryptSecret(stored: string): string;
  /** A key for HMAC tags of one purpose (e.g. our Message-IDs), derived from the current key. */
  hmacKey(purpose: string): Buffer;
}

const PREFIX = 'v1';
const KEY_FILE = 'secret.key';

function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

function deriveKey(material: string): Buffer {
  return createHash('sha256').update(material).digest();
}

/** The keys, newest first: from configuration, or the data directory's key file (made when missing). */
function loadKeys(configured: string | undefined, dataDir: string): Buffer[] {
  if (configured) {
    return configured
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean)
      .map(deriveKey);
  }
  const path = join(dataDir, KEY_FILE);
  if (!existsSync(path)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
  }
  return [deriveKey(readFileSync(path, 'utf8').trim())];
}

export function createSecretStore(options: { secretKey: string | undefined; dataDir: string }): SecretStore {
  let keys: Buffer[] | undefined;
  const current = () => (keys ??= loadKeys(options.secretKey, options.dataDir));
  return {
    encryptSecret(plain) {
      const key = current()[0]!;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64'));
      return [PREFIX, keyId(key), ...parts].join(':');
    },
    hmacKey(purpose) {
      return createHash('sha256').update(current()[0]!).update(purpose).digest();
    },
    decryptSecret(stored) {
      const [prefix, id, iv, tag, ciphertext] = stored.split(':');
      if (prefix !== PREFIX || !id || !iv || !tag || ciphertext === undefined) {
        throw new Error('stored secret is malformed');
      }
      const key = current().find((k) => keyId(k) === id);
      if (!key) throw new Error(`stored secret was sealed with key ${id}, which is not configured`);
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}

const stores = new WeakMap<object, SecretStore>();

/** The secret store of a configuration (one per process; the key file is read once). */
export function secretStoreFor(config: {
  dataDir: string;
  email: { secretKey: string | undefined };
}): SecretStore {
  let store = stores.get(config);
  if (!store) {
    store = createSecretStore({ secretKey: config.email.secretKey, dataDir: config.dataDir });
    stores.set(config, store);
  }
  return store;
}
