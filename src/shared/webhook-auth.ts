/**
 * What every inbound provider webhook (Postmark now; Meta and Twilio as they come) does before
 * it reads a body: authenticate from the request line and headers (or a small bounded prefix),
 * answer a client that failed too often with 429 and `Retry-After`, and only then let the body
 * in, up to the provider's own cap. Failures are counted in the coordination counters (Redis
 * when configured, so every instance sees them; process memory otherwise).
 *
 * Counted per (connection, client address) and per client address, as logins are: a sender
 * that guesses passwords is stopped, while the provider's own deliveries from other addresses
 * go on.
 */
import type { Coordination } from '../coordination/index.js';
import { AppError, ErrorCode } from '../http/errors.js';

/** The largest body each provider's webhook reads (after authentication). */
export const WEBHOOK_BODY_LIMITS = {
  /** Postmark inbound: the mail as JSON with base64 attachments (Postmark sends up to 10 MB of mail). */
  postmark: 12 * 1024 * 1024,
  /** Meta (WhatsApp, Messenger, Instagram) change notifications. */
  meta: 1024 * 1024,
  /** Twilio status and message callbacks (form-encoded). */
  twilio: 64 * 1024,
} as const;

export type WebhookProvider = keyof typeof WEBHOOK_BODY_LIMITS;

export interface WebhookThrottleOptions {
  /** Failures per (connection, address) before 429. */
  maxFailures: number;
  /** Failures per address over all connections before 429 (several connections guessed at once). */
  maxAddressFailures: number;
  /** Length of the counting window; also the Retry-After of a 429. */
  windowSeconds: number;
}

export const DEFAULT_WEBHOOK_THROTTLE: WebhookThrottleOptions = {
  maxFailures: 10,
  maxAddressFailures: 40,
  windowSeconds: 300,
};

export class WebhookAuthThrottle {
  constructor(
    private readonly coordination: Coordination,
    private readonly provider: WebhookProvider,
    private readonly options: WebhookThrottleOptions = DEFAULT_WEBHOOK_THROTTLE,
  ) {}

  private keys(connection: string, address: string) {
    return {
      pair: `webhook-auth-fail:${this.provider}:${connection}:${address}`,
      address: `webhook-auth-fail:${this.provider}:address:${address}`,
    };
  }

  /** Throws the 429 when this client failed too often on this connection or overall. */
  async check(connection: string, address: string): Promise<void> {
    const keys = this.keys(connection, address);
    const [pair, overall] = await Promise.all([
      this.coordination.count(keys.pair),
      this.coordination.count(keys.address),
    ]);
    if (pair >= this.options.maxFailures || overall >= this.options.maxAddressFailures) {
      throw new AppError(429, ErrorCode.rateLimited, 'Too many failed authentications; try again later', {
        details: { code: 'webhook_auth_throttled' },
        headers: { 'retry-after': String(this.options.windowSeconds) },
      });
    }
  }

  /** Counts a failed authentication. */
  async failed(connection: string, address: string): Promise<void> {
    const keys = this.keys(connection, address);
    await Promise.all([
      this.coordination.increment(keys.pair, this.options.windowSeconds),
      this.coordination.increment(keys.address, this.options.windowSeconds),
    ]);
  }

  /** A success clears the pair's count (not the address's: other connections were guessed at). */
  async succeeded(connection: string, address: string): Promise<void> {
    await this.coordination.reset(this.keys(connection, address).pair);
  }
}
