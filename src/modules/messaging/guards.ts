/**
 * Two small guards of the public webhooks and the provider calls, behind functions of their own
 * so a shared implementation can replace them:
 * - `webhookAuthFailureThrottle`: a connection's webhook that keeps receiving badly signed
 *   requests from one address answers 429 for a while without checking (no oracle, no CPU sink);
 * - `checkOutboundHost`: a provider request only goes to an http(s) URL of the configured base.
 */

const WINDOW_MS = 60_000;
const MAX_FAILURES = 30;
const failures = new Map<string, { count: number; since: number }>();

export const webhookAuthFailureThrottle = {
  /** True while this (connection, address) is throttled. */
  blocked(connectionId: string, address: string, now = Date.now()): boolean {
    const entry = failures.get(`${connectionId}|${address}`);
    if (!entry) return false;
    if (now - entry.since > WINDOW_MS) {
      failures.delete(`${connectionId}|${address}`);
      return false;
    }
    return entry.count >= MAX_FAILURES;
  },
  /** Counts one failed signature check. */
  fail(connectionId: string, address: string, now = Date.now()): void {
    const key = `${connectionId}|${address}`;
    const entry = failures.get(key);
    if (!entry || now - entry.since > WINDOW_MS) failures.set(key, { count: 1, since: now });
    else entry.count += 1;
    if (failures.size > 10_000) failures.delete(failures.keys().next().value!);
  },
  reset(): void {
    failures.clear();
  },
};

/** Throws unless `url` is an http(s) URL under `base` (the configured provider base URL). */
export function checkOutboundHost(url: string, base: string): void {
  const target = new URL(url);
  const allowed = new URL(base);
  if (target.protocol !== 'https:' && target.protocol !== 'http:')
    throw new Error(`provider URL with protocol ${target.protocol} refused`);
  if (target.host !== allowed.host) throw new Error(`provider host ${target.host} is not the configured one`);
}
