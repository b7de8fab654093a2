import { decodeTimeCursor, encodeTimeCursor, type TimeCursor } from '../../shared/pagination.js';

/**
 * Event lists are sorted by the event's start (date and time), not by creation, so the cursor
 * carries the start as its timestamp. Each sort direction is a list of its own: a cursor of
 * one direction is refused by the other.
 */
const listName = (descending: boolean) => (descending ? 'events:start-desc' : 'events:start-asc');

export function eventCursor(descending: boolean, position: TimeCursor): string {
  return encodeTimeCursor(listName(descending), position);
}

export function parseEventCursor(descending: boolean, cursor: string | undefined): TimeCursor | undefined {
  return decodeTimeCursor(listName(descending), cursor);
}
