/**
 * Bookings made by bots: the events module's extension of the conversation engine. It offers
 * the bot's bookable events in the system prompt and turns booking tags in the reply into
 * bookings for the contact of the chat's sender_id — inside the transaction that stores the
 * exchange, so a reply that is not stored (conversation handed over, failure) books nothing.
 */
import { LRUCache } from 'lru-cache';
import { inSavepoint, type Database, type Queryable } from '../../db/database.js';
import { cacheLookups } from '../../observability/metrics.js';
import type { ChatExtension, ChatTurn } from '../chat/index.js';
import { findOrCreateContactBySender } from '../contacts/index.js';
import { bookInTransaction, type BookingOutcome } from './bookings/service.js';
import {
  bookableEventsSection,
  bookingChannelOf,
  parseBookingTags,
  stripBookingTags,
  type BookingTag,
} from './bookings/tags.js';
import { findEvent, listBookableEvents } from './repository.js';
import { serializeBooking } from './serialize.js';

/** How many events the prompt lists at most (soonest first); keeps the prompt small. */
const MAX_OFFERED_EVENTS = 20;
/** Longest life of a cached offer list (it is also dropped at its first booking deadline). */
const OFFER_CACHE_TTL_MS = 60_000;

/**
 * The prompt section of a bot's bookable events, cached per tenant events version (read with
 * the bot by the chat's admission, grown by a trigger on every change to an event): a change
 * to any event of the tenant, on any instance, makes the next chat read the list afresh. Time
 * alone only ends offers, at their booking deadline, so an entry lives until the first
 * deadline among its events. Most bots offer no events: their empty list is cached too, and
 * their chats skip the statement altogether.
 */
function offerCache() {
  const cache = new LRUCache<string, { text: string | null }>({
    maxSize: 4 * 1024 * 1024,
    sizeCalculation: (value, key) => 2 * (key.length + (value.text?.length ?? 0)) + 64,
    ttl: OFFER_CACHE_TTL_MS,
  });
  return async (db: Database, turn: ChatTurn): Promise<string | null> => {
    const key = `${turn.tenantId}:${turn.bot.id}:${turn.bot.events_version}`;
    const cached = cache.get(key);
    cacheLookups.inc({ cache: 'offered_events', result: cached ? 'hit' : 'miss' });
    if (cached) return cached.text;
    const events = await listBookableEvents(db, turn.tenantId, turn.bot.id, MAX_OFFERED_EVENTS);
    const text = events.length === 0 ? null : bookableEventsSection(events);
    const firstDeadline = Math.min(
      ...events.map((event) =>
        event.booking_deadline ? new Date(event.booking_deadline).getTime() : Infinity,
      ),
    );
    const ttl = Math.min(OFFER_CACHE_TTL_MS, firstDeadline - Date.now());
    if (ttl > 0) cache.set(key, { text }, { ttl });
    return text;
  };
}

export interface BookingAction {
  type: 'booking';
  tag: BookingTag['kind'];
  event_id: string;
  event_title: string | null;
  status: 'confirmed' | 'waitlist' | 'refused';
  booking_id: string | null;
  waitlist_position: number | null;
  payment_status: string | null;
  payment_amount: number | null;
  currency: string | null;
  payment_url: string | null;
  reason: string | null;
  message: string | null;
}

/** PostgreSQL's unique_violation: the one-open-booking-per-contact index as the last word. */
function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

function refusedAction(
  tag: BookingTag,
  reason: string,
  message: string,
  title: string | null = null,
): BookingAction {
  return {
    type: 'booking',
    tag: tag.kind,
    event_id: tag.eventId,
    event_title: title,
    status: 'refused',
    booking_id: null,
    waitlist_position: null,
    payment_status: null,
    payment_amount: null,
    currency: null,
    payment_url: null,
    reason,
    message,
  };
}

function bookedAction(tag: BookingTag, outcome: Extract<BookingOutcome, { ok: true }>): BookingAction {
  const booking = serializeBooking(outcome.event, outcome.booking);
  return {
    type: 'booking',
    tag: tag.kind,
    event_id: outcome.event.id,
    event_title: outcome.event.title,
    status: booking.status === 'waitlist' ? 'waitlist' : 'confirmed',
    booking_id: booking.id,
    waitlist_position: booking.waitlist_position,
    payment_status: booking.payment_status,
    payment_amount: booking.payment_amount,
    currency: outcome.event.currency,
    payment_url: booking.payment_url,
    reason: null,
    message: null,
  };
}

/**
 * Books one tag inside the exchange's transaction. Each tag has its own savepoint: a refused
 * booking takes back the contact it created, and the other tags and the exchange go on.
 */
async function bookFromTag(
  tx: Queryable,
  turn: ChatTurn,
  senderId: string,
  tag: BookingTag,
): Promise<BookingAction> {
  // Only the events offered to this bot: its own and the tenant-wide ones.
  const event = await findEvent(tx, turn.tenantId, tag.eventId);
  if (!event || (event.bot_id !== null && event.bot_id !== turn.bot.id)) {
    return refusedAction(tag, 'event_not_found', 'Event not found');
  }
  let outcome: BookingOutcome;
  try {
    outcome = await inSavepoint(
      tx,
      'chat_booking',
      async () => {
        const contact = await findOrCreateContactBySender(tx, turn.tenantId, {
          senderId,
          channel: turn.channel,
        });
        return bookInTransaction(tx, turn.tenantId, {
          eventId: event.id,
          contactId: contact.id,
          channel: bookingChannelOf(turn.channel),
          metadata: {
            source: 'chat',
            bot_id: turn.bot.id,
            conversation_id: turn.conversationId,
            tag: tag.kind,
          },
        });
      },
      (result) => result.ok,
    );
  } catch (error) {
    // A concurrent booking of the same contact won the unique index.
    if (isUniqueViolation(error)) {
      return refusedAction(
        tag,
        'already_booked',
        'The contact already has a booking for this event',
        event.title,
      );
    }
    throw error;
  }
  if (outcome.ok) return bookedAction(tag, outcome);
  const action = refusedAction(tag, outcome.code, outcome.message, event.title);
  if (outcome.existing) {
    action.booking_id = outcome.existing.id;
    action.waitlist_position = outcome.existing.waitlist_position;
  }
  return action;
}

export function eventBookingExtension(): ChatExtension {
  const offeredEvents = offerCache();
  return {
    name: 'events',
    async promptSections(turn, db) {
      const text = await offeredEvents(db, turn);
      return text === null ? [] : [{ name: 'bookable_events', text }];
    },
    async processReply(turn) {
      const tags = parseBookingTags(turn.reply);
      if (tags.length === 0) return { reply: turn.reply, actions: [] };
      const reply = stripBookingTags(turn.reply);
      const senderId = turn.senderId;
      if (!senderId) {
        const actions = tags.map((tag) =>
          refusedAction(tag, 'sender_required', "A booking needs the chat request's sender_id"),
        );
        return { reply, actions };
      }
      // The bookings are made where the exchange is stored, in its transaction.
      const apply = async (tx: Queryable) => {
        const actions: BookingAction[] = [];
        for (const tag of tags) actions.push(await bookFromTag(tx, turn, senderId, tag));
        return actions;
      };
      return { reply, actions: [], apply };
    },
  };
}
