/**
 * The outbound-connection guard for every host a tenant can name: mailbox IMAP and SMTP hosts
 * today, provider base URLs and messaging or voice connections as they come. The rules are the
 * ones of webhooks and imports (`ssrf.ts`): only ordinary unicast addresses, judged after DNS
 * resolution, and again on every connect; the connection goes to exactly the address that was
 * checked (resolve and pin), so a DNS answer that changes in between cannot slip through.
 *
 * On top of the address rules a host must be spelled as a DNS name or a canonical IP address:
 * numeric shorthands that the system resolver would read as an address (`2130706433`,
 * `0x7f.1`, `017700000001`, `127.1`) and names that always mean this machine (`localhost`,
 * `*.localhost`) are refused before any lookup.
 */
import net, { isIP, type LookupFunction, type Socket } from 'node:net';
import {
  TargetRefusedError,
  hostOf,
  isForbiddenAddress,
  parseWebhookUrl,
  resolveAllowedAddresses,
  urlRefusal,
} from './ssrf.js';
import type { ResolvedAddress } from './ssrf.js';

/** Whether internal addresses may be reached: only for tests and closed networks. */
export interface OutboundPolicy {
  allowPrivate: boolean;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const DOTTED_QUAD = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
/** A last label of digits or a hex number: the resolver would read the whole name as an address. */
const NUMERIC_LABEL = /^(0x[0-9a-f]*|\d+)$/;

/**
 * The host in its checked form (lower case, no trailing dot), or TargetRefusedError with a
 * reason in words. Does not resolve: see checkOutboundHost.
 */
export function checkHostName(raw: string): string {
  const host = raw
    .trim()
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[(.*)\]$/, '$1');
  if (host === '' || host.length > 253)
    throw new TargetRefusedError('host is empty or too long', 'url_no_host');
  const literal = isIP(host);
  if (literal === 6) return host;
  if (literal === 4) {
    if (!DOTTED_QUAD.test(host)) {
      throw new TargetRefusedError(`host '${raw}' is not a canonical IP address`, 'url_invalid', raw);
    }
    return host;
  }
  const labels = host.split('.');
  if (!labels.every((label) => LABEL.test(label))) {
    throw new TargetRefusedError(`host '${raw}' is not a valid host name`, 'url_invalid', raw);
  }
  if (NUMERIC_LABEL.test(labels[labels.length - 1]!)) {
    // 2130706433, 0x7f.1, 127.1, 0177.0.0.1: the resolver reads these as IPv4 addresses.
    throw new TargetRefusedError(
      `host '${raw}' is a numeric address form; write an IP address as four decimal numbers`,
      'url_invalid',
      raw,
    );
  }
  return host;
}

const namesThisMachine = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/** Shape and resolved addresses of a host a tenant names (at create and update). */
export async function checkOutboundHost(raw: string, policy: OutboundPolicy): Promise<ResolvedAddress[]> {
  const host = checkHostName(raw);
  if (!policy.allowPrivate && namesThisMachine(host)) {
    throw new TargetRefusedError(`host '${raw}' names this machine`, 'url_host_internal', raw);
  }
  return resolveAllowedAddresses(host, policy.allowPrivate);
}

/**
 * A provider base URL a tenant names (e.g. a messaging or voice API): https only unless
 * internal targets are allowed, no credentials in the URL, the host checked as above.
 */
export async function checkOutboundUrl(raw: string, policy: OutboundPolicy): Promise<URL> {
  const url = parseWebhookUrl(raw.trim());
  if (url.protocol !== 'https:' && !policy.allowPrivate) {
    throw new TargetRefusedError('URL must start with https://', 'url_scheme');
  }
  await checkOutboundHost(hostOf(url), policy);
  return url;
}

/** The 400 for a refused host in request field `field`, in words (as for webhook URLs). */
export const hostRefusal = urlRefusal;

/** The address to connect to now: resolved and checked at this moment (one per connect). */
export async function pinnedAddress(host: string, policy: OutboundPolicy): Promise<ResolvedAddress> {
  const addresses = await checkOutboundHost(host, policy);
  return addresses.find((a) => a.family === 4) ?? addresses[0]!;
}

/**
 * Opens a TCP connection to a host a tenant named: resolved and checked now, connected to the
 * checked address. Rejects with TargetRefusedError for a refused host (nothing is sent or
 * read), with the socket error otherwise; the socket is connected when the promise resolves.
 */
export async function connectGuarded(
  host: string,
  port: number,
  policy: OutboundPolicy & { timeoutMs: number },
): Promise<Socket> {
  const { address } = await pinnedAddress(host, policy);
  return new Promise<Socket>((resolve, reject) => {
    const socket = net.connect({ host: address, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error(`no connection within ${policy.timeoutMs} ms`), { code: 'ETIMEDOUT' }));
    }, policy.timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    });
  });
}

/**
 * A `lookup` for net/tls sockets (and libraries that pass it on): each connect resolves and
 * checks the host again and connects to the checked addresses only. Literal IP hosts skip
 * `lookup` in Node, so a caller checks those with checkLiteralHost before connecting.
 */
export function outboundLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    checkOutboundHost(hostname, policy).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
        if (usable.length === 0) {
          const error = new TargetRefusedError(
            `host '${hostname}' has no IPv${wanted} address`,
            'url_host_unresolvable',
            hostname,
          );
          callback(error, '', 0);
        } else if (options.all) {
          callback(null, usable);
        } else {
          callback(null, usable[0]!.address, usable[0]!.family);
        }
      },
      (error: Error) => callback(error, '', 0),
    );
  };
}

/** For a literal IP host (which skips `lookup`): throws TargetRefusedError when it is refused. */
export function checkLiteralHost(host: string, policy: OutboundPolicy): void {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (!isIP(bare)) return;
  checkHostName(bare);
  if (!policy.allowPrivate && isForbiddenAddress(bare)) {
    throw new TargetRefusedError(
      `host '${host}' is a loopback, private, link-local or otherwise internal address`,
      'url_host_internal',
      host,
    );
  }
}

/** Whether an error is the guard's refusal (the target was never contacted). */
export function isRefusal(error: unknown): error is TargetRefusedError {
  return error instanceof TargetRefusedError;
}
