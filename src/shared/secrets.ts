/**
 * Encryption of tenant secrets at rest (AES-256-GCM).
 *
 * Keys come from PARLEY_SECRET_KEY: either one base64 key of 32 bytes (its id is `default`) or a
 * list `id:key,id:key,...` for rotation: the first key encrypts, every listed key decrypts. On the
 * embedded database without PARLEY_SECRET_KEY a key is generated once in the data directory
 * (`secret.key`, mode 0600). A stored value names the key that encrypted it:
 * `s1:<key id>:<iv>:<ciphertext+tag>` (base64url). An optional context (for example the row the
 * secret belongs to) is bound as additional authenticated data, so a value copied to another row
 * does not decrypt.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PREFIX = 's1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
export const DEFAULT_KEY_ID = 'default';
export const KEY_FILE_NAME = 'secret.key';

export class SecretKeyError extends Error {}
/** A stored value that cannot be decrypted: unknown key, wrong context or tampered with. */
export class SecretDecryptError extends Error {}

export interface SecretKeyring {
  /** Id of the key that encrypts. */
  readonly currentId: string;
  readonly keys: ReadonlyMap<string, Buffer>;
}

/** Parses PARLEY_SECRET_KEY (one base64 key, or `id:key,...`); throws SecretKeyError with a clear text. */
export function parseSecretKeys(raw: string): SecretKeyring {
  const parts = raw
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (parts.length === 0) throw new SecretKeyError('PARLEY_SECRET_KEY is empty');
  const keys = new Map<string, Buffer>();
  let currentId: string | undefined;
  for (const part of parts) {
    const colon = part.indexOf(':');
    const id = colon === -1 ? DEFAULT_KEY_ID : part.slice(0, colon);
    const encoded = colon === -1 ? part : part.slice(colon + 1);
    if (!KEY_ID.test(id)) {
      throw new SecretKeyError(`PARLEY_SECRET_KEY: key id "${id}" must be 1–32 letters, digits, _ or -`);
    }
    if (keys.has(id)) throw new SecretKeyError(`PARLEY_SECRET_KEY: key id "${id}" is listed twice`);
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded)) {
      throw new SecretKeyError(`PARLEY_SECRET_KEY: key "${id}" is not base64`);
    }
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== KEY_BYTES) {
      throw new SecretKeyError(
        `PARLEY_SECRET_KEY: key "${id}" must be ${KEY_BYTES} bytes (base64), got ${key.length}`,
      );
    }
    keys.set(id, key);
    currentId ??= id;
  }
  return { currentId: currentId!, keys };
}

/** A new key in the form PARLEY_SECRET_KEY takes (`id:base64`). */
export function generateSecretKey(id = DEFAULT_KEY_ID): string {
  return `${id}:${randomBytes(KEY_BYTES).toString('base64')}`;
}

/**
 * The keyring of a deployment: PARLEY_SECRET_KEY when set; otherwise, on the embedded database,
 * the key file in the data directory (created with mode 0600 on first use). On PostgreSQL the
 * key must be configured: every instance needs the same key.
 */
export function loadSecretKeyring(options: {
  secretKey: string | undefined;
  dataDir: string;
  databaseUrl: string | undefined;
}): SecretKeyring {
  if (options.secretKey !== undefined) return parseSecretKeys(options.secretKey);
  if (options.databaseUrl !== undefined) {
    throw new SecretKeyError(
      'PARLEY_SECRET_KEY must be set on PostgreSQL (every instance needs the same key); generate one with `openssl rand -base64 32`',
    );
  }
  const path = join(options.dataDir, KEY_FILE_NAME);
  if (!existsSync(path)) {
    mkdirSync(options.dataDir, { recursive: true });
    try {
      writeFileSync(path, generateSecretKey('local') + '\n', { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process created it in the meantime: read theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  chmodSync(path, 0o600);
  return parseSecretKeys(readFileSync(path, 'utf8'));
}

const keyrings = new WeakMap<object, SecretKeyring>();

/** The keyring for a configuration, loaded once. */
export function secretKeyring(config: {
  secretKey: string | undefined;
  dataDir: string;
  databaseUrl: string | undefined;
}): SecretKeyring {
  let keyring = keyrings.get(config);
  if (!keyring) {
    keyring = loadSecretKeyring(config);
    keyrings.set(config, keyring);
  }
  return keyring;
}

export function encryptSecret(keyring: SecretKeyring, plaintext: string, context = ''): string {
  const key = keyring.keys.get(keyring.currentId)!;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`${PREFIX}:${keyring.currentId}:${context}`, 'utf8'));
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return [PREFIX, keyring.currentId, iv.toString('base64url'), sealed.toString('base64url')].join(':');
}

export function decryptSecret(keyring: SecretKeyring, stored: string, context = ''): string {
  const parts = stored.split(':');
  if (parts.length !== 4 || parts[0] !== PREFIX) throw new SecretDecryptError('not an encrypted secret');
  const [, keyId, ivText, sealedText] = parts as [string, string, string, string];
  const key = keyring.keys.get(keyId);
  if (!key) throw new SecretDecryptError(`secret was encrypted with key "${keyId}", which is not configured`);
  const iv = Buffer.from(ivText, 'base64url');
  const sealed = Buffer.from(sealedText, 'base64url');
  if (iv.length !== IV_BYTES || sealed.length < TAG_BYTES) throw new SecretDecryptError('malformed secret');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(Buffer.from(`${PREFIX}:${keyId}:${context}`, 'utf8'));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    throw new SecretDecryptError('secret does not decrypt (tampered with, or wrong key or context)');
  }
}

/** Whether a stored value was encrypted with a key other than the current one (re-encrypt it). */
export function needsReencryption(keyring: SecretKeyring, stored: string): boolean {
  return stored.split(':')[1] !== keyring.currentId;
}
