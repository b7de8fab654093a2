import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import {
  decryptSecret,
  encryptSecret,
  generateSecretKey,
  loadSecretKeyring,
  needsReencryption,
  parseSecretKeys,
  SecretDecryptError,
  SecretKeyError,
} from '../../src/shared/secrets.js';

const keyA = Buffer.alloc(32, 1).toString('base64');
const keyB = Buffer.alloc(32, 2).toString('base64');

describe('tenant secret encryption', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('round-trips and never stores the plain text', () => {
    const keyring = parseSecretKeys(keyA);
    const stored = encryptSecret(keyring, 'whsec_geheim');
    expect(stored).not.toContain('whsec_geheim');
    expect(stored.startsWith('s1:default:')).toBe(true);
    expect(decryptSecret(keyring, stored)).toBe('whsec_geheim');
    // A fresh IV each time.
    expect(encryptSecret(keyring, 'whsec_geheim')).not.toBe(stored);
  });

  it('rotation: the first key encrypts, older listed keys still decrypt', () => {
    const old = parseSecretKeys(`k1:${keyA}`);
    const storedOld = encryptSecret(old, 'alt');
    const rotated = parseSecretKeys(`k2:${keyB},k1:${keyA}`);
    expect(decryptSecret(rotated, storedOld)).toBe('alt');
    expect(needsReencryption(rotated, storedOld)).toBe(true);
    const storedNew = encryptSecret(rotated, 'neu');
    expect(storedNew.split(':')[1]).toBe('k2');
    expect(needsReencryption(rotated, storedNew)).toBe(false);
    // Once k1 is dropped, its values no longer decrypt.
    expect(() => decryptSecret(parseSecretKeys(`k2:${keyB}`), storedOld)).toThrow(SecretDecryptError);
  });

  it('detects tampering, a wrong key and a wrong context', () => {
    const keyring = parseSecretKeys(`k1:${keyA}`);
    const stored = encryptSecret(keyring, 'secret', 'bot:1');
    const parts = stored.split(':');
    const sealed = Buffer.from(parts[3]!, 'base64url');
    sealed[0] = sealed[0]! ^ 1;
    const tampered = [parts[0], parts[1], parts[2], sealed.toString('base64url')].join(':');
    expect(() => decryptSecret(keyring, tampered, 'bot:1')).toThrow(SecretDecryptError);
    expect(() => decryptSecret(keyring, stored, 'bot:2')).toThrow(SecretDecryptError);
    expect(() => decryptSecret(parseSecretKeys(`k1:${keyB}`), stored, 'bot:1')).toThrow(SecretDecryptError);
    // Relabelling the key id is caught too (the id is authenticated).
    const other = parseSecretKeys(`k1:${keyA},k9:${keyA}`);
    expect(() => decryptSecret(other, stored.replace(':k1:', ':k9:'), 'bot:1')).toThrow(SecretDecryptError);
    expect(() => decryptSecret(keyring, 'plain', 'bot:1')).toThrow(SecretDecryptError);
    expect(decryptSecret(keyring, stored, 'bot:1')).toBe('secret');
  });

  it('refuses malformed keys, also at configuration load', () => {
    expect(() => parseSecretKeys('')).toThrow(SecretKeyError);
    expect(() => parseSecretKeys(Buffer.alloc(16).toString('base64'))).toThrow(/32 bytes/);
    expect(() => parseSecretKeys(`a:${keyA},a:${keyB}`)).toThrow(/twice/);
    expect(() => parseSecretKeys(`bad id:${keyA}`)).toThrow(/key id/);
    expect(() => loadConfig({ PARLEY_SECRET_KEY: 'kurz' })).toThrow(ConfigError);
    expect(loadConfig({ PARLEY_SECRET_KEY: generateSecretKey('x') }).secretKey).toMatch(/^x:/);
  });

  it('embedded default: a key file with mode 0600 in the data directory, reused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-secrets-'));
    dirs.push(dir);
    const first = loadSecretKeyring({ secretKey: undefined, dataDir: dir, databaseUrl: undefined });
    const path = join(dir, 'secret.key');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const stored = encryptSecret(first, 'x');
    const second = loadSecretKeyring({ secretKey: undefined, dataDir: dir, databaseUrl: undefined });
    expect(decryptSecret(second, stored)).toBe('x');
    expect(readFileSync(path, 'utf8')).toMatch(/^local:/);
  });

  it('PostgreSQL needs a configured key', () => {
    expect(() =>
      loadSecretKeyring({ secretKey: undefined, dataDir: '/nonexistent', databaseUrl: 'postgres://x/y' }),
    ).toThrow(/PARLEY_SECRET_KEY must be set/);
  });
});
