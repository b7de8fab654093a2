import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { secretStoreFor } from '../../src/modules/mailboxes/secret-store.js';

const key = () => randomBytes(32).toString('base64');
const storeWith = (secretKey: string) =>
  secretStoreFor({ secretKey, dataDir: '/nonexistent', databaseUrl: 'postgres://unused' });

const BINDING = { mailboxId: '00000000-0000-4000-8000-00000000000a', field: 'client_secret' };

describe('mailbox secret store', () => {
  it('derives HMAC keys per purpose from the current key, and the earlier keys’ after a rotation', () => {
    const [first, second] = [key(), key()];
    const before = storeWith(`k1:${first}`);
    const rotated = storeWith(`k2:${second},k1:${first}`);
    const purpose = 'email-message-id';

    expect(before.previousHmacKeys(purpose)).toEqual([]);
    expect(rotated.hmacKey(purpose).equals(before.hmacKey(purpose))).toBe(false);
    expect(rotated.previousHmacKeys(purpose).map((k) => k.toString('hex'))).toEqual([
      before.hmacKey(purpose).toString('hex'),
    ]);
    // Another purpose gets other keys from the same secret key.
    expect(before.hmacKey('other').equals(before.hmacKey(purpose))).toBe(false);
  });

  it('keeps secrets sealed under the earlier key readable after a rotation', () => {
    const [first, second] = [key(), key()];
    const sealed = storeWith(`k1:${first}`).encryptSecret('app-secret', BINDING);
    const rotated = storeWith(`k2:${second},k1:${first}`);
    expect(rotated.decryptSecret(sealed, BINDING)).toBe('app-secret');
    expect(rotated.encryptSecret('x', BINDING).split(':')[1]).toBe('k2');
    expect(() => storeWith(`k2:${second}`).decryptSecret(sealed, BINDING)).toThrow();
  });
});
