import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const ENCRYPTED_PREFIX = 'enc1:';
export const MIN_SECRETS_KEY_LENGTH = 32;

/**
 * Storage form of endpoint signing secrets. Signing needs the plain secret, so it cannot be
 * hashed like an API key. With WEBHOOK_SECRETS_KEY set, secrets are stored encrypted with
 * AES-256-GCM (`enc1:<iv>:<tag>:<ciphertext>`, base64), so a database dump alone does not
 * reveal them; without it they are stored as they are. Both forms can be read, so turning
 * encryption on later keeps older secrets working (they are encrypted at their next rotation).
 */
export class SecretBox {
  private readonly key: Buffer | undefined;

  constructor(secretsKey: string | undefined) {
    if (secretsKey !== undefined && secretsKey.length < MIN_SECRETS_KEY_LENGTH) {
      throw new Error(`WEBHOOK_SECRETS_KEY must be at least ${MIN_SECRETS_KEY_LENGTH} characters long`);
    }
    this.key = secretsKey === undefined ? undefined : createHash('sha256').update(secretsKey).digest();
  }

  seal(secret: string): string {
    if (!this.key) return secret;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return ENCRYPTED_PREFIX + [iv, tag, ciphertext].map((b) => b.toString('base64')).join(':');
  }

  open(stored: string): string {
    if (!stored.startsWith(ENCRYPTED_PREFIX)) return stored;
    if (!this.key) throw new Error('signing secret is encrypted but WEBHOOK_SECRETS_KEY is not set');
    const [iv, tag, ciphertext] = stored
      .slice(ENCRYPTED_PREFIX.length)
      .split(':')
      .map((part) => Buffer.from(part, 'base64'));
    if (!iv || !tag || !ciphertext) throw new Error('stored signing secret is malformed');
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('signing secret cannot be decrypted with the configured WEBHOOK_SECRETS_KEY');
    }
  }
}
