import type { TFunction } from 'i18next';

/** A webhook event type in the user's language (`booking.created` → "Buchung angelegt"); unknown ones as they are. */
export function eventTypeLabel(t: TFunction, type: string): string {
  return t(`webhooks.eventTypes.${type}`, { defaultValue: type });
}
