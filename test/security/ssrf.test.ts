import { describe, expect, it } from 'vitest';
import { TargetRefusedError, checkWebhookUrl, isForbiddenAddress } from '../../src/shared/ssrf.js';

/** IPv6 spellings of internal IPv4 addresses, and other special-purpose IPv6 ranges. */
const FORBIDDEN = [
  '::127.0.0.1', // IPv4-compatible
  '::7f00:1', // IPv4-compatible, hex
  '::a9fe:a9fe', // IPv4-compatible metadata address
  '::10.0.0.1',
  '::ffff:127.0.0.1', // IPv4-mapped
  '::ffff:7f00:1',
  '::ffff:0:127.0.0.1', // IPv4-translated
  '::ffff:0:a00:1',
  '::ffff:0:169.254.169.254',
  '64:ff9b::127.0.0.1', // NAT64 well-known prefix
  '64:ff9b::a9fe:a9fe',
  '64:ff9b::192.168.0.1',
  '64:ff9b:1::8.8.8.8', // local-use NAT64
  '2002:7f00:1::', // 6to4 of 127.0.0.1
  '2002:0808:0808::1', // 6to4 of a public address: a tunnel, refused too
  '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
  '2001:db8::1', // documentation
  '2001:2::1', // benchmarking
  '100::1', // discard
  'fec0::1', // site-local
  '3fff::1', // documentation (RFC 9637)
  '192.0.0.8',
  '198.18.0.1',
  '240.0.0.1',
];
const ALLOWED = ['::ffff:8.8.8.8', '::ffff:0:8.8.8.8', '64:ff9b::8.8.8.8', '2001:4860:4860::8888', '1.1.1.1'];

describe('SSRF guard: IPv6 forms of internal addresses', () => {
  it.each(FORBIDDEN)('refuses %s', (address) => expect(isForbiddenAddress(address)).toBe(true));
  it.each(ALLOWED)('allows %s', (address) => expect(isForbiddenAddress(address)).toBe(false));

  it.each(FORBIDDEN.filter((a) => a.includes(':')))('refuses the URL http://[%s]/hook', async (address) => {
    await expect(checkWebhookUrl(`http://[${address}]/hook`, false)).rejects.toBeInstanceOf(
      TargetRefusedError,
    );
  });
});
