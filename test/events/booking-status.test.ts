import { describe, expect, it } from 'vitest';
import {
  BOOKING_STATUSES,
  decideBookingTransition,
  paymentTermsFor,
  placeBooking,
  promotionsFor,
  type BookingStatus,
} from '../../src/modules/events/bookings/status.js';

const MANUAL_ALLOWED: [BookingStatus, BookingStatus][] = [
  ['confirmed', 'attended'],
  ['confirmed', 'no_show'],
  ['confirmed', 'cancelled'],
  ['waitlist', 'cancelled'],
];
const AUTOMATIC_ALLOWED: [BookingStatus, BookingStatus][] = [['waitlist', 'confirmed']];

const key = (f: string, t: string) => `${f}->${t}`;
const pairs = BOOKING_STATUSES.flatMap((from) => BOOKING_STATUSES.map((to) => [from, to] as const));

describe('booking status transitions', () => {
  const manual = new Set(MANUAL_ALLOWED.map(([f, t]) => key(f, t)));
  const automatic = new Set(AUTOMATIC_ALLOWED.map(([f, t]) => key(f, t)));

  it.each(pairs)('manual %s → %s follows the table', (from, to) => {
    const decision = decideBookingTransition(from, to, 'manual');
    expect(decision.allowed).toBe(manual.has(key(from, to)));
    if (!decision.allowed) {
      expect(decision.reason).toContain(`'${from}'`);
      expect(decision.reason).toContain(`'${to}'`);
    }
  });

  it.each(pairs)('automatic %s → %s follows the table', (from, to) => {
    expect(decideBookingTransition(from, to, 'automatic').allowed).toBe(automatic.has(key(from, to)));
  });

  it('explains that a waitlist booking moves up on its own', () => {
    const decision = decideBookingTransition('waitlist', 'confirmed', 'manual');
    expect(decision).toMatchObject({ allowed: false, reason: expect.stringContaining('automatically') });
  });

  it.each(['cancelled', 'attended', 'no_show'] as const)('%s is final', (from) => {
    for (const to of BOOKING_STATUSES) {
      expect(decideBookingTransition(from, to, 'manual').allowed).toBe(false);
      expect(decideBookingTransition(from, to, 'automatic').allowed).toBe(false);
    }
  });
});

describe('placement of a new booking', () => {
  it.each([
    [
      { selling: true, capacityTotal: 2, capacityBooked: 0, capacityWaitlist: 0, waitlistMax: 0 },
      { status: 'confirmed' },
    ],
    [
      { selling: true, capacityTotal: 2, capacityBooked: 1, capacityWaitlist: 0, waitlistMax: null },
      { status: 'confirmed' },
    ],
    [
      { selling: true, capacityTotal: 2, capacityBooked: 2, capacityWaitlist: 0, waitlistMax: null },
      { status: 'waitlist', position: 1 },
    ],
    [
      { selling: true, capacityTotal: 2, capacityBooked: 2, capacityWaitlist: 4, waitlistMax: 5 },
      { status: 'waitlist', position: 5 },
    ],
    [
      { selling: true, capacityTotal: 0, capacityBooked: 0, capacityWaitlist: 7, waitlistMax: null },
      { status: 'waitlist', position: 8 },
    ],
  ])('%o → %o', (state, expected) => {
    expect(placeBooking(state)).toEqual(expected);
  });

  it('queues on the waitlist while the event is held in waitlist, even with free places', () => {
    expect(
      placeBooking({
        selling: false,
        capacityTotal: 5,
        capacityBooked: 1,
        capacityWaitlist: 0,
        waitlistMax: null,
      }),
    ).toEqual({ status: 'waitlist', position: 1 });
  });

  it.each([
    { selling: true, capacityTotal: 2, capacityBooked: 2, capacityWaitlist: 5, waitlistMax: 5 },
    { selling: true, capacityTotal: 2, capacityBooked: 2, capacityWaitlist: 0, waitlistMax: 0 },
  ])('refuses when full and the waitlist is full: %o', (state) => {
    expect(placeBooking(state)).toMatchObject({
      status: 'refused',
      reason: expect.stringContaining('fully booked'),
    });
  });
});

describe('waitlist move-ups', () => {
  it.each([
    [{ selling: true, capacityTotal: 5, capacityBooked: 4, capacityWaitlist: 3, waitlistMax: null }, 1],
    [{ selling: true, capacityTotal: 5, capacityBooked: 1, capacityWaitlist: 3, waitlistMax: null }, 3],
    [{ selling: true, capacityTotal: 5, capacityBooked: 5, capacityWaitlist: 3, waitlistMax: null }, 0],
    [{ selling: true, capacityTotal: 5, capacityBooked: 2, capacityWaitlist: 0, waitlistMax: null }, 0],
    [{ selling: false, capacityTotal: 5, capacityBooked: 1, capacityWaitlist: 3, waitlistMax: null }, 0],
  ])('%o moves %i up', (state, count) => {
    expect(promotionsFor(state)).toBe(count);
  });
});

describe('payment terms', () => {
  const event = { price: 80, deposit_amount: 20 };
  it.each([
    ['free', 'confirmed', { payment_status: 'not_required', payment_amount: null }],
    ['external_link', 'confirmed', { payment_status: 'not_required', payment_amount: null }],
    ['full_payment', 'confirmed', { payment_status: 'pending', payment_amount: 80 }],
    ['deposit', 'confirmed', { payment_status: 'pending', payment_amount: 20 }],
    ['full_payment', 'waitlist', { payment_status: 'not_required', payment_amount: null }],
    ['deposit', 'waitlist', { payment_status: 'not_required', payment_amount: null }],
  ] as const)('%s, %s → %o', (model, status, expected) => {
    expect(paymentTermsFor({ ...event, payment_model: model }, status)).toEqual(expected);
  });
});
