import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { backoffDelay, decideNext, parseRetryAfter } from '../../src/modules/outbox/policy.js';
import { GONE_REASON, verdictOf } from '../../src/modules/webhooks/sender.js';
import { openLegacySigningSecret } from '../../src/modules/webhooks/secret-box.js';
import { SecretDecryptError } from '../../src/shared/secrets.js';
import { legacySealedSecret } from './helpers.js';
import { generateSigningSecret, signedHeaders } from '../../src/modules/webhooks/signing.js';
import { TargetRefusedError, isForbiddenAddress, parseWebhookUrl } from '../../src/shared/ssrf.js';

const NOW = Date.parse('2026-03-10T12:00:00Z');

describe('a receiver answer, read as a verdict and decided by the outbox policy', () => {
  const cases: Array<[string, { statusCode?: number; retryAfter?: string }, number, string, number?]> = [
    ['2xx succeeds', { statusCode: 204 }, 1, 'sent'],
    ['410 is dead at once (the endpoint is switched off)', { statusCode: 410 }, 1, 'dead'],
    ['410 on the last attempt is dead too', { statusCode: 410 }, 8, 'dead'],
    ['500 is retried', { statusCode: 500 }, 1, 'retry'],
    ['429 is retried', { statusCode: 429 }, 3, 'retry'],
    ['no answer is retried', {}, 2, 'retry'],
    ['a 3xx redirect is not followed but retried', { statusCode: 302 }, 1, 'retry'],
    ['the last attempt fails for good', { statusCode: 503 }, 8, 'dead'],
    ['Retry-After seconds replace the backoff', { statusCode: 429, retryAfter: '120' }, 1, 'retry', 120_000],
    [
      'Retry-After as a date',
      { statusCode: 503, retryAfter: new Date(NOW + 90_000).toUTCString() },
      1,
      'retry',
      90_000,
    ],
  ];
  it.each(cases)('%s', (_name, outcome, attempt, kind, delayMs) => {
    if (outcome.statusCode === 410)
      expect(verdictOf(outcome)).toEqual({ kind: 'permanent', reason: GONE_REASON });
    const decision = decideNext({
      verdict: verdictOf(outcome),
      attempt,
      maxAttempts: 8,
      nowMs: NOW,
      random: 0.5,
    });
    expect(decision.kind).toBe(kind);
    if (delayMs !== undefined && decision.kind === 'retry') expect(decision.delayMs).toBe(delayMs);
  });
});

describe('backoffDelay', () => {
  it('grows exponentially, stays within ±25 % jitter and is capped', () => {
    expect(backoffDelay(1, 0.5)).toBe(30_000);
    expect(backoffDelay(2, 0.5)).toBe(120_000);
    expect(backoffDelay(3, 0.5)).toBe(480_000);
    expect(backoffDelay(1, 0)).toBe(22_500);
    expect(backoffDelay(1, 1)).toBe(37_500);
    expect(backoffDelay(20, 0.5)).toBe(12 * 3600_000);
  });

  it('reads Retry-After defensively', () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter('999999999', NOW)).toBe(24 * 3600_000);
    expect(parseRetryAfter(new Date(NOW - 5000).toUTCString(), NOW)).toBe(0);
  });
});

describe('signing', () => {
  it('produces headers the standardwebhooks package verifies', () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const body = JSON.stringify({ type: 'lead.generated', data: { ü: 'ß' } });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = signedHeaders([secret], 'msg_1', timestamp, body);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body + ' ', { ...headers })).toThrow();
    expect(() => new Webhook(generateSigningSecret()).verify(body, { ...headers })).toThrow();
  });

  it('signs with every given secret, so both sides of a rotation verify', () => {
    const [oldSecret, newSecret] = [generateSigningSecret(), generateSigningSecret()];
    const body = '{"a":1}';
    const headers = signedHeaders([newSecret, oldSecret], 'msg_2', Math.floor(Date.now() / 1000), body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(oldSecret).verify(body, { ...headers })).toEqual({ a: 1 });
    expect(new Webhook(newSecret).verify(body, { ...headers })).toEqual({ a: 1 });
  });
});

describe('isForbiddenAddress', () => {
  const forbidden = [
    '127.0.0.1',
    '127.8.9.10',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fe80::1',
    'fd00:ec2::254',
    'fc00::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    'not-an-ip',
  ];
  const allowed = ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'];
  it.each(forbidden)('refuses %s', (address) => expect(isForbiddenAddress(address)).toBe(true));
  it.each(allowed)('allows %s', (address) => expect(isForbiddenAddress(address)).toBe(false));
});

describe('parseWebhookUrl', () => {
  it.each([
    ['ftp://example.com/x', /https/],
    ['not a url', /not valid/],
    ['https://user:pw@example.com/hook', /user name or password/],
    [`https://example.com/${'a'.repeat(2000)}`, /longer/],
  ])('refuses %s', (url, reason) => {
    expect(() => parseWebhookUrl(url)).toThrow(TargetRefusedError);
    expect(() => parseWebhookUrl(url)).toThrow(reason);
  });

  it('accepts http and https URLs', () => {
    expect(parseWebhookUrl('https://hooks.example.com/a?b=1').hostname).toBe('hooks.example.com');
    expect(parseWebhookUrl('http://[::1]:8080/x').hostname).toBe('[::1]');
  });
});

describe('signing secrets of the former storage form (read by the start-up re-seal only)', () => {
  it('opens the plain form and the WEBHOOK_SECRETS_KEY form', () => {
    const sealed = legacySealedSecret('k'.repeat(32), 'whsec_abc');
    expect(sealed).not.toContain('abc');
    expect(openLegacySigningSecret(sealed, 'k'.repeat(32))).toBe('whsec_abc');
    expect(openLegacySigningSecret('whsec_plain', undefined)).toBe('whsec_plain');
  });

  it('refuses a wrong or missing key, and a value of the bound form', () => {
    const sealed = legacySealedSecret('a'.repeat(40), 'whsec_y');
    expect(() => openLegacySigningSecret(sealed, 'b'.repeat(40))).toThrow(SecretDecryptError);
    expect(() => openLegacySigningSecret(sealed, undefined)).toThrow(/WEBHOOK_SECRETS_KEY/);
    expect(() => openLegacySigningSecret('s1:default:aaaa:bbbb', 'a'.repeat(40))).toThrow(SecretDecryptError);
  });
});
