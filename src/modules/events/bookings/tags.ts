/**
 * Booking intent tags in bot replies (`[BOOK:<event_id>]`, `[WAITLIST:<event_id>]`) and the
 * prompt section that offers bookable events to the model. Pure.
 */
import type { BookingChannel } from './status.js';
import type { ChatChannel } from '../../chat/index.js';
import { channelOf } from '../../channels/index.js';
import { inlineText } from '../../prompt/index.js';

export type BookingTagKind = 'BOOK' | 'WAITLIST';

export interface BookingTag {
  kind: BookingTagKind;
  eventId: string;
}

/** Tolerates case and spaces inside the brackets; the id is whatever stands before `]`. */
const TAG = /\[\s*(BOOK|WAITLIST)\s*:\s*([^\]\s]*)\s*\]/gi;

/** The tags of a reply in order, each event once (a repeated tag is one intent). */
export function parseBookingTags(reply: string): BookingTag[] {
  const seen = new Set<string>();
  const tags: BookingTag[] = [];
  for (const match of reply.matchAll(TAG)) {
    const eventId = match[2]!.toLowerCase();
    if (seen.has(eventId)) continue;
    seen.add(eventId);
    tags.push({ kind: match[1]!.toUpperCase() as BookingTagKind, eventId });
  }
  return tags;
}

/** The reply without its tags, with the whitespace they leave behind tidied. */
export function stripBookingTags(reply: string): string {
  return reply
    .replace(TAG, '')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/ +([.,!?;:])/g, '$1')
    .trim();
}

/** The booking channel of a chat channel: its descriptor's (the chat's `webhook` is an API integration). */
export function bookingChannelOf(channel: ChatChannel): BookingChannel {
  return channelOf(channel).bookingChannel;
}

export interface OfferedEvent {
  id: string;
  title: string;
  event_date: string;
  event_time_start: string | null;
  location: string | null;
  price: number;
  currency: string;
  payment_model: string;
  capacity_total: number;
  capacity_booked: number;
  status: string;
  /** When the offer ends by itself (the list is cached until the first of them). */
  booking_deadline?: Date | null;
}

function describeEvent(event: OfferedEvent): string {
  const when = inlineText(
    event.event_time_start ? `${event.event_date} ${event.event_time_start.slice(0, 5)}` : event.event_date,
  );
  const free = Math.max(0, event.capacity_total - event.capacity_booked);
  const availability =
    event.status === 'selling' && free > 0
      ? `${free} Plätze frei – Tag [BOOK:${event.id}]`
      : `ausgebucht, Warteliste – Tag [WAITLIST:${event.id}]`;
  const price =
    event.payment_model === 'free' || event.price === 0
      ? 'kostenlos'
      : `${event.price.toFixed(2)} ${inlineText(event.currency)}`;
  const where = event.location ? `, ${inlineText(event.location)}` : '';
  return `- ${inlineText(event.title)} (${when}${where}; ${price}; ${availability})`;
}

/** The prompt section listing the events the bot can book, with the tag syntax. */
export function bookableEventsSection(events: readonly OfferedEvent[]): string {
  return [
    '## Buchbare Veranstaltungen',
    'Diese Veranstaltungen können im Gespräch gebucht werden:',
    ...events.map(describeEvent),
    '',
    'Wenn der Nutzer eine dieser Veranstaltungen ausdrücklich buchen möchte, schreibe den angegebenen Tag ' +
      'genau einmal an das Ende deiner Antwort: [BOOK:<event_id>] bei freien Plätzen, ' +
      '[WAITLIST:<event_id>] für die Warteliste. Das System führt die Buchung aus und entfernt den Tag.',
    'Verwende nur die oben aufgeführten IDs, erfinde keine Veranstaltungen und setze keinen Tag ohne ' +
      'ausdrücklichen Buchungswunsch. Bestätige eine Buchung nicht selbst; das System meldet das Ergebnis.',
  ].join('\n');
}
