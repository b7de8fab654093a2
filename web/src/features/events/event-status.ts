import type { EventRow } from '../../api/types';

/** The badge colour of an event's status. */
export const EVENT_STATUS_COLOUR: Record<EventRow['status'], string> = {
  draft: 'gray',
  selling: 'green',
  waitlist: 'orange',
  completed: 'blue',
  cancelled: 'red',
};
