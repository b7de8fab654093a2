/** The public surface of the events module: what other modules may import (see docs/ARCHITECTURE.md). */
export {
  countOpenBookings,
  deleteBookingsOfContact,
  eventsOfContact,
  exportBookingsOfContact,
  findBookingClashes,
  moveBookings,
  openBookingsOfContact,
} from './bookings/repository.js';
export { settleCapacity } from './capacity.js';
export { eventBookingExtension } from './chat-extension.js';
export { findEvent, lockEventsForUpdate, recomputeEventCounts } from './repository.js';
export { setBookingStatus } from './service.js';
export { signalBooking } from './signals.js';
