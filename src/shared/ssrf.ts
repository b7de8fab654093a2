import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { type AppError, type ErrorDetails, badRequest } from '../http/errors.js';

/**
 * Guard against server-side request forgery: webhook URLs must not reach the service's own
 * network. Checked when an endpoint is registered and again when each delivery connects, so a
 * host that later resolves to an internal address (DNS rebinding) is refused too.
 */

/** Why a URL is refused, as a code of the error body (url_*), with the host where one is named. */
export type TargetRefusal =
  | 'url_too_long'
  | 'url_invalid'
  | 'url_scheme'
  | 'url_credentials'
  | 'url_no_host'
  | 'url_host_unresolvable'
  | 'url_host_internal';

export class TargetRefusedError extends Error {
  constructor(
    message: string,
    readonly code: TargetRefusal = 'url_invalid',
    readonly host?: string,
  ) {
    super(message);
  }
}

/**
 * The IPv4 address an IPv6 address carries, for the forms that reach an IPv4 host:
 * IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d, deprecated), IPv4-translated
 * (::ffff:0:a.b.c.d) and NAT64 with the well-known prefix (64:ff9b::a.b.c.d).
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const parts = address.parts;
  const range = address.range();
  const compatible = parts.slice(0, 6).every((p) => p === 0);
  const nat64 = range === 'rfc6052' && parts[0] === 0x64 && parts[1] === 0xff9b && parts[2] === 0;
  if (!compatible && range !== 'ipv4Mapped' && range !== 'rfc6145' && !nat64) return undefined;
  const [high, low] = [parts[6]!, parts[7]!];
  return new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);
}

/**
 * True when the address is loopback, private, link-local, metadata, unspecified, multicast,
 * reserved or any other special-purpose range: only ordinary unicast addresses are allowed
 * (ranges as classified by ipaddr.js). IPv6 forms that carry an IPv4 address are judged by
 * that address; tunnels that embed an IPv4 address the service cannot check (6to4, Teredo) and
 * local-use NAT64 (64:ff9b:1::/48) are refused outright.
 */
export function isForbiddenAddress(address: string): boolean {
  if (!isIP(address)) return true;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() !== 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded) return embedded.range() !== 'unicast';
  return v6.range() !== 'unicast';
}

export const MAX_URL_LENGTH = 2000;

/** The 400 for a refused URL in request field `field`: its code, the field and the host. */
export function urlRefusal(field: string, error: TargetRefusedError): AppError {
  const details: ErrorDetails = { code: error.code, field };
  if (error.host !== undefined) details.host = error.host;
  if (error.code === 'url_too_long') details.limit = MAX_URL_LENGTH;
  return badRequest(`Field '${field}' refused: ${error.message}`, details);
}

/** Shape rules for a webhook URL; throws TargetRefusedError with a readable reason. */
export function parseWebhookUrl(raw: string): URL {
  if (raw.length > MAX_URL_LENGTH)
    throw new TargetRefusedError(`URL is longer than ${MAX_URL_LENGTH} characters`, 'url_too_long');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefusedError('URL is not valid', 'url_invalid');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TargetRefusedError('URL must start with https:// or http://', 'url_scheme');
  }
  if (url.username || url.password) {
    // Credentials in the URL would be shown in every listing; receivers verify the signature instead.
    throw new TargetRefusedError('URL must not contain a user name or password', 'url_credentials');
  }
  if (!url.hostname) throw new TargetRefusedError('URL has no host', 'url_no_host');
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
      throw new TargetRefusedError(`host '${host}' cannot be resolved`, 'url_host_unresolvable', host);
    }
    if (addresses.length === 0)
      throw new TargetRefusedError(`host '${host}' cannot be resolved`, 'url_host_unresolvable', host);
  }
  if (!allowPrivate) {
    const forbidden = addresses.find((a) => isForbiddenAddress(a.address));
    if (forbidden) {
      throw new TargetRefusedError(
        `host '${host}' resolves to ${forbidden.address}, a loopback, private, link-local or otherwise internal address`,
        'url_host_internal',
        host,
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
