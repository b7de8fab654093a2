/** The closed list of outbound webhook event types. */
export const WEBHOOK_EVENT_TYPES = [
  'conversation.ended',
  'lead.generated',
  'escalation.triggered',
  'satisfaction.rated',
  'event.status_changed',
  'booking.created',
  'booking.cancelled',
  'booking.promoted',
  'payment.succeeded',
  // A person's reply in the inbox to an API-channel conversation.
  'conversation.message',
  'mailbox.secret_expiring',
  // A messaging connection's credentials were refused (Meta 190, HTTP 401).
  'channel.unhealthy',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}
