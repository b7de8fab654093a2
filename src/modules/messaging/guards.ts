/**
 * The provider request guard: a request to Meta's Graph API or Twilio's API goes only to an
 * http(s) URL on the host of the configured base URL (WHATSAPP_GRAPH_BASE_URL,
 * TWILIO_API_BASE_URL: the operator's configuration, not a tenant's). What a tenant gives
 * (phone number id, account SID) is only ever a path segment, and cannot move the request to
 * another host. The failed-signature throttle of the webhooks is the shared
 * `WebhookAuthThrottle` (shared/webhook-auth.ts).
 */

/** Throws unless `url` is an http(s) URL on the host of `base` (the configured provider base URL). */
export function checkProviderUrl(url: string, base: string): void {
  const target = new URL(url);
  const allowed = new URL(base);
  if (target.protocol !== 'https:' && target.protocol !== 'http:')
    throw new Error(`provider URL with protocol ${target.protocol} refused`);
  if (target.host !== allowed.host) throw new Error(`provider host ${target.host} is not the configured one`);
}
