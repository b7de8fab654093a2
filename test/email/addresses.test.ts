import { describe, expect, it } from 'vitest';
import { exactlyOne, replyTargets } from '../../src/modules/email/addresses.js';
import { connectorErrorCode, describeConnectorError } from '../../src/modules/email/connector-errors.js';

describe('exactly one address from a sender field', () => {
  const cases: [string, Parameters<typeof exactlyOne>[0], string | null][] = [
    ['plain', ['kunde@kunde.example'], 'kunde@kunde.example'],
    ['with a name', ['"Anna Becker" <Anna@Kunde.example>'], 'anna@kunde.example'],
    ['structured', [{ name: 'Anna', address: 'anna@kunde.example' }], 'anna@kunde.example'],
    [
      'the same address twice (structured and plain)',
      [{ name: 'A', address: 'a@x.example' }, 'A@x.example'],
      'a@x.example',
    ],
    ['a comma list', ['a@example.test, other@evil.example'], 'address_count'],
    [
      'a list in a structured address',
      [{ name: '', address: 'a@example.test, other@evil.example' }],
      'address_count',
    ],
    ['group syntax', ['Team: a@example.test, other@evil.example;'], 'address_count'],
    ['a ; list', ['a@example.test; other@evil.example'], 'address_count'],
    ['CRLF Bcc', ['a@example.test\r\nBcc: x@evil.example'], 'address_injection'],
    [
      'LF in a name',
      [{ name: 'Eve\nBcc: x@evil.example', address: 'eve@example.test' }],
      'address_injection',
    ],
    ['local part of 64', [`${'l'.repeat(64)}@example.test`], `${'l'.repeat(64)}@example.test`],
    ['local part of 65', [`${'l'.repeat(65)}@example.test`], 'address_too_long'],
    [
      'address of 255',
      [`a@${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(63)}.${'g'.repeat(61)}`],
      'address_too_long',
    ],
    ['no domain', ['MAILER-DAEMON'], 'address_invalid'],
    ['white space inside', ['"a b"@example.test'], 'address_invalid'],
    ['nothing', [], null],
  ];
  it.each(cases)('%s', (_name, fields, expected) => {
    const result = exactlyOne(fields);
    if (expected === null) return expect(result).toBeNull();
    if (expected.includes('@')) expect(result).toMatchObject({ ok: true, address: { address: expected } });
    else expect(result).toEqual({ ok: false, reason: expected });
  });
});

describe('who a reply goes to', () => {
  const own = ['info@studio.example', 'kontakt@studio.example'];
  it('Reply-To (first address) replaces From; Cc kept without our own addresses and the recipient', () => {
    expect(
      replyTargets(
        {
          from: ['Studio <info@studio.example>'],
          replyTo: ['Anna <anna@kunde.example>, zweite@kunde.example'],
          cc: ['jana@firma.example, INFO@studio.example', 'kontakt@studio.example', 'anna@kunde.example'],
        },
        { own, replyAll: true },
      ),
    ).toEqual({
      ok: true,
      from: { name: 'Studio', address: 'info@studio.example' },
      to: { name: 'Anna', address: 'anna@kunde.example' },
      replyTo: { name: 'Anna', address: 'anna@kunde.example' },
      cc: [{ name: '', address: 'jana@firma.example' }],
    });
  });
  it('reply to all off: no Cc', () => {
    const result = replyTargets(
      { from: ['a@kunde.example'], cc: ['b@kunde.example'] },
      { own, replyAll: false },
    );
    expect(result).toMatchObject({ ok: true, cc: [] });
  });
  it('a line break in Cc refuses the whole mail; an invalid Cc entry is left out', () => {
    expect(
      replyTargets(
        { from: ['a@kunde.example'], cc: ['b@x.example\r\nBcc: e@evil.example'] },
        { own, replyAll: true },
      ),
    ).toEqual({
      ok: false,
      reason: 'address_injection',
    });
    expect(
      replyTargets({ from: ['a@kunde.example'], cc: ['kaputt, b@x.example'] }, { own, replyAll: true }),
    ).toMatchObject({
      ok: true,
      cc: [{ address: 'b@x.example' }],
    });
  });
  it('no sender at all', () => {
    expect(replyTargets({ from: [] }, { own, replyAll: true })).toEqual({ ok: false, reason: 'no_sender' });
  });
});

describe('connector errors as codes with words', () => {
  const cases: [string, object, string][] = [
    ['DNS', { code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND imap.nowhere.example' }, 'dns'],
    ['refused', { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:9' }, 'refused'],
    ['timeout', { code: 'ETIMEDOUT', message: 'Connection timed out' }, 'timeout'],
    [
      'imapflow timeout',
      { code: 'CONNECT_TIMEOUT', message: 'Failed to establish connection in required time' },
      'timeout',
    ],
    ['TLS', { code: 'ERR_SSL_WRONG_VERSION_NUMBER', message: 'wrong version number' }, 'tls'],
    ['self-signed', { code: 'DEPTH_ZERO_SELF_SIGNED_CERT', message: 'self-signed certificate' }, 'tls'],
    [
      'IMAP login',
      { authenticationFailed: true, message: 'Command failed', serverResponseCode: 'AUTHENTICATIONFAILED' },
      'auth',
    ],
    ['SMTP login', { code: 'EAUTH', responseCode: 535, message: 'Invalid login: 535 5.7.8 Error' }, 'auth'],
    ['quota', { message: 'Command failed', serverResponseCode: 'OVERQUOTA' }, 'quota'],
    ['greeting', { message: 'Invalid greeting. response=SSH-2.0-OpenSSH_9.2p1' }, 'protocol'],
    [
      'expired secret',
      { message: 'token request refused: AADSTS7000222: The provided client secret keys are expired.' },
      'graph_secret',
    ],
    [
      'Graph 401',
      { message: 'delta query failed: InvalidAuthenticationToken', status: 401 },
      'graph_unauthorized',
    ],
    ['Graph 403', { message: 'delta query failed: ErrorAccessDenied', status: 403 }, 'graph_forbidden'],
    ['Graph 429', { message: 'delta query failed: ApplicationThrottled', status: 429 }, 'graph_throttled'],
    ['Graph 503', { message: 'delta query failed', status: 503 }, 'server_error'],
    ['closed', { code: 'NoConnection', message: 'Connection not available' }, 'connection_lost'],
    ['other', { message: 'something odd' }, 'unknown'],
  ];
  it.each(cases)('%s', (_name, error, code) => {
    expect(connectorErrorCode(error)).toBe(code);
  });
  it('a refused connection in German and English with what to do; no server greeting in the detail', () => {
    const refused = describeConnectorError(
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
    );
    expect(refused.de).toBe('Der Server antwortet nicht (Verbindung abgelehnt). Prüfen Sie Server und Port.');
    expect(refused.en).toContain('Check server and port');
    expect(refused.detail).toContain('ECONNREFUSED');
    const banner = describeConnectorError(
      new Error('Invalid greeting. response=SSH-2.0-OpenSSH_9.2p1 Debian'),
    );
    expect(banner.code).toBe('protocol');
    expect(banner.detail).not.toContain('OpenSSH');
  });
});
