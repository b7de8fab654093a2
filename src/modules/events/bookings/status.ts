/**
 * The booking state machine of the specification (States › Booking status) and the placement
 * rule for new bookings, as pure decisions.
 */
import type { PaymentModel } from '../event-status.js';

export const BOOKING_STATUSES = ['confirmed', 'waitlist', 'cancelled', 'attended', 'no_show'] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

export const PAYMENT_STATUSES = ['not_required', 'pending', 'paid', 'refunded'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export { BOOKING_CHANNELS, type BookingChannel } from '../../channels/index.js';

/** Statuses that occupy a place of the capacity: counted in capacity_booked. */
export const PLACE_HOLDING: readonly BookingStatus[] = ['confirmed', 'attended', 'no_show'];
export const FINAL_BOOKING_STATUSES: readonly BookingStatus[] = ['cancelled', 'attended', 'no_show'];

export type BookingTrigger = 'manual' | 'automatic';

const MANUAL: Record<BookingStatus, readonly BookingStatus[]> = {
  confirmed: ['attended', 'no_show', 'cancelled'],
  waitlist: ['cancelled'],
  cancelled: [],
  attended: [],
  no_show: [],
};
const AUTOMATIC: Record<BookingStatus, readonly BookingStatus[]> = {
  confirmed: [],
  waitlist: ['confirmed'],
  cancelled: [],
  attended: [],
  no_show: [],
};

export type BookingDecision = { allowed: true } | { allowed: false; reason: string };

export function decideBookingTransition(
  from: BookingStatus,
  to: BookingStatus,
  trigger: BookingTrigger,
): BookingDecision {
  const refused = (why: string): BookingDecision => ({
    allowed: false,
    reason: `Booking status cannot change from '${from}' to '${to}': ${why}`,
  });
  if (from === to) return refused('the booking already has this status');
  if (FINAL_BOOKING_STATUSES.includes(from)) return refused(`'${from}' is a final status`);
  if ((trigger === 'manual' ? MANUAL : AUTOMATIC)[from].includes(to)) return { allowed: true };
  if (trigger === 'manual' && AUTOMATIC[from].includes(to)) {
    return refused('a waitlist booking moves up automatically when a place becomes free');
  }
  return refused(`allowed from '${from}' are ${MANUAL[from].map((s) => `'${s}'`).join(', ')}`);
}

export interface CapacityState {
  /** Whether the event confirms bookings now (status selling); in waitlist, bookings queue. */
  selling: boolean;
  capacityTotal: number;
  capacityBooked: number;
  capacityWaitlist: number;
  /** null means an unlimited waitlist. */
  waitlistMax: number | null;
}

/** The capacity state of an event row. */
export function capacityStateOf(event: {
  status: string;
  capacity_total: number;
  capacity_booked: number;
  capacity_waitlist: number;
  waitlist_max: number | null;
}): CapacityState {
  return {
    selling: event.status === 'selling',
    capacityTotal: event.capacity_total,
    capacityBooked: event.capacity_booked,
    capacityWaitlist: event.capacity_waitlist,
    waitlistMax: event.waitlist_max,
  };
}

export type Placement =
  { status: 'confirmed' } | { status: 'waitlist'; position: number } | { status: 'refused'; reason: string };

/**
 * Where a new booking goes: a free place while the event is selling, else the end of the
 * waitlist while it has room.
 */
export function placeBooking(state: CapacityState): Placement {
  if (state.selling && state.capacityTotal - state.capacityBooked > 0) return { status: 'confirmed' };
  if (state.waitlistMax === null || state.capacityWaitlist < state.waitlistMax) {
    return { status: 'waitlist', position: state.capacityWaitlist + 1 };
  }
  return { status: 'refused', reason: 'The event is fully booked and its waitlist is full' };
}

/** How many waitlist bookings move up: as many as there are free places, while selling. */
export function promotionsFor(state: CapacityState): number {
  if (!state.selling) return 0;
  return Math.max(0, Math.min(state.capacityTotal - state.capacityBooked, state.capacityWaitlist));
}

export interface PaymentTerms {
  payment_status: PaymentStatus;
  payment_amount: number | null;
}

/**
 * Payment of a booking that holds a place. Provider-paid models start `pending` with the price
 * (or the deposit); free and externally paid events are not tracked here. Waitlist bookings
 * are asked to pay only once they move up, so nobody pays for a place they may never get.
 */
export function paymentTermsFor(
  event: { payment_model: PaymentModel; price: number; deposit_amount: number | null },
  status: 'confirmed' | 'waitlist',
): PaymentTerms {
  if (status === 'waitlist') return { payment_status: 'not_required', payment_amount: null };
  if (event.payment_model === 'full_payment')
    return { payment_status: 'pending', payment_amount: event.price };
  if (event.payment_model === 'deposit') {
    return { payment_status: 'pending', payment_amount: event.deposit_amount ?? event.price };
  }
  return { payment_status: 'not_required', payment_amount: null };
}
