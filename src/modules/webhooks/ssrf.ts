import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Guard against server-side request forgery: webhook URLs must not reach the service's own
 * network. Checked when an endpoint is registered and again when each delivery connects, so a
 * host that later resolves to an internal address (DNS rebinding) is refused too.
 */
export class TargetRefusedError extends Error {}

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local (also fd00:ec2::254, the IPv6 metadata address)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: embeds arbitrary IPv4 addresses
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address embedded in a NAT64 (64:ff9b::/96) address, if it is one. */
function nat64Embedded(address: string): string | undefined {
  const match = /^64:ff9b::(?:([0-9a-f]{1,4}):([0-9a-f]{1,4})|(\d+\.\d+\.\d+\.\d+))$/i.exec(address);
  if (!match) return undefined;
  if (match[3]) return match[3];
  const high = parseInt(match[1]!, 16);
  const low = parseInt(match[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** True when the address is loopback, private, link-local, metadata, unspecified, multicast or reserved. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    // BlockList matches IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) against the IPv4 rules.
    if (blocked.check(address, 'ipv6')) return true;
    const embedded = nat64Embedded(address);
    return embedded !== undefined && blocked.check(embedded, 'ipv4');
  }
  return true;
}

export const MAX_URL_LENGTH = 2000;

/** Shape rules for a webhook URL; throws TargetRefusedError with a readable reason. */
export function parseWebhookUrl(raw: string): URL {
  if (raw.length > MAX_URL_LENGTH)
    throw new TargetRefusedError(`URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefusedError('URL is not valid');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TargetRefusedError('URL must start with https:// or http://');
  }
  if (url.username || url.password) {
    // Credentials in the URL would be shown in every listing; receivers verify the signature instead.
    throw new TargetRefusedError('URL must not contain a user name or password');
  }
  if (!url.hostname) throw new TargetRefusedError('URL has no host');
  return url;
}

/** The URL's host without the brackets of an IPv6 literal. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a host to all its addresses and refuses it when any of them is forbidden (a host
 * with one public and one internal address could be steered to the internal one).
 */
export async function resolveAllowedAddresses(
  host: string,
  allowPrivate: boolean,
): Promise<ResolvedAddress[]> {
  let addresses: ResolvedAddress[];
  const literal = isIP(host);
  if (literal) {
    addresses = [{ address: host, family: literal as 4 | 6 }];
  } else {
    try {
      const found = await lookup(host, { all: true, verbatim: true });
      addresses = found.map((a) => ({ address: a.address, family: a.family as 4 | 6 }));
    } catch {
      throw new TargetRefusedError(`host '${host}' cannot be resolved`);
    }
    if (addresses.length === 0) throw new TargetRefusedError(`host '${host}' cannot be resolved`);
  }
  if (!allowPrivate) {
    const forbidden = addresses.find((a) => isForbiddenAddress(a.address));
    if (forbidden) {
      throw new TargetRefusedError(
        `host '${host}' resolves to ${forbidden.address}, a loopback, private, link-local or otherwise internal address`,
      );
    }
  }
  return addresses;
}

/** Registration-time check of a URL: shape and resolved addresses. */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean): Promise<URL> {
  const url = parseWebhookUrl(raw);
  await resolveAllowedAddresses(hostOf(url), allowPrivate);
  return url;
}
