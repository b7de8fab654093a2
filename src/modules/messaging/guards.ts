/**
 * The messaging channels' guards. The opt-out guard (a channel guard of admission,
 * chat/pipeline/guards.ts): a customer who opted out (STOP, or the provider's refusal) is not
 * answered; the turn is settled `skipped` with the reason `opted_out`. The 24-hour window does
 * not concern inbound turns (the customer's message opens it); it is checked for a person's
 * reply (outbound.ts) and before every send (sender.ts).
 *
 * The provider request guard: a request to Meta's Graph API or Twilio's API goes only to an
 * http(s) URL on the host of the configured base URL (WHATSAPP_GRAPH_BASE_URL,
 * TWILIO_API_BASE_URL: the operator's configuration, not a tenant's). What a tenant gives
 * (phone number id, account SID) is only ever a path segment, and cannot move the request to
 * another host. The failed-signature throttle of the webhooks is the shared
 * `WebhookAuthThrottle` (shared/webhook-auth.ts).
 */

import { PASS, type ChannelGuard } from '../chat/pipeline/guards.js';
import { isOptedOut } from './repository.js';

/** Throws unless `url` is an http(s) URL on the host of `base` (the configured provider base URL). */
export function checkProviderUrl(url: string, base: string): void {
  const target = new URL(url);
  const allowed = new URL(base);
  if (target.protocol !== 'https:' && target.protocol !== 'http:')
    throw new Error(`provider URL with protocol ${target.protocol} refused`);
  if (target.host !== allowed.host) throw new Error(`provider host ${target.host} is not the configured one`);
}

export const optOutGuard: ChannelGuard = {
  name: 'messaging_opt_out',
  async check(ctx, inbound) {
    const turn = inbound.facts?.messaging;
    if (!turn || !(await isOptedOut(ctx.db, turn.connectionId, turn.from))) return PASS;
    return { pass: false, code: 'opted_out', reason: 'opted_out' };
  },
};
