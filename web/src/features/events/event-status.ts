import type { EventRow } from '../../api/types';

/** The badge colour of an event's status. */
export const EVENT_STATUS_COLOUR: Record<EventRow['status'], string> = {
  draft: 'gray',
  selling: 'green',
  waitlist: 'orange',
  completed: 'blue',
  cancelled: 'red',
};

/** The calendar day of a date as the API takes it: YYYY-MM-DD. */
export function day(value: string | Date | null | undefined): string | null {
  if (!value) return null;
  return typeof value === 'string' ? value.slice(0, 10) : value.toISOString().slice(0, 10);
}
