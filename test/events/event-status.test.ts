import { describe, expect, it } from 'vitest';
import {
  automaticEventStatus,
  canDeleteEvent,
  decideEventTransition,
  deletionRefusedMessage,
  EVENT_STATUSES,
  requiresProviderLink,
  type EventStatus,
} from '../../src/modules/events/event-status.js';

/** The specification's table (States › Event status): every allowed pair. */
const ALLOWED: [EventStatus, EventStatus][] = [
  ['draft', 'selling'],
  ['draft', 'cancelled'],
  ['selling', 'waitlist'],
  ['selling', 'completed'],
  ['selling', 'cancelled'],
  ['waitlist', 'selling'],
  ['waitlist', 'completed'],
  ['waitlist', 'cancelled'],
];

const key = (from: string, to: string) => `${from}->${to}`;
const allowedKeys = new Set(ALLOWED.map(([f, t]) => key(f, t)));
const ALL_PAIRS = EVENT_STATUSES.flatMap((from) => EVENT_STATUSES.map((to) => [from, to] as const));
const REFUSED = ALL_PAIRS.filter(([f, t]) => !allowedKeys.has(key(f, t)));

describe('event status transitions', () => {
  it('covers all 25 pairs: 8 allowed, 17 refused', () => {
    expect(ALLOWED).toHaveLength(8);
    expect(REFUSED).toHaveLength(17);
  });

  it.each(ALLOWED)('allows %s → %s', (from, to) => {
    expect(decideEventTransition(from, to)).toEqual({ allowed: true });
  });

  it.each(REFUSED)('refuses %s → %s, naming both statuses', (from, to) => {
    const decision = decideEventTransition(from, to);
    expect(decision.allowed).toBe(false);
    if (!decision.allowed) {
      expect(decision.reason).toContain(`'${from}'`);
      expect(decision.reason).toContain(`'${to}'`);
    }
  });
});

describe('automatic selling ↔ waitlist switch', () => {
  it.each([
    ['selling', 0, false, 'waitlist'],
    ['selling', 0, true, 'waitlist'],
    ['selling', 1, false, null],
    ['selling', 1, true, null],
    ['waitlist', 1, true, 'selling'],
    // A manual hold (waitlist with free places) is kept until places are freed.
    ['waitlist', 1, false, null],
    ['waitlist', 0, true, null],
    ['draft', 0, false, null],
    ['completed', 5, true, null],
    ['cancelled', 0, true, null],
  ] as const)('%s with %i free places (freed now: %s) → %s', (status, freePlaces, placesFreed, expected) => {
    expect(automaticEventStatus(status, { freePlaces, placesFreed })).toBe(expected);
  });
});

describe('event deletion', () => {
  it.each([
    ['draft', true],
    ['cancelled', true],
    ['selling', false],
    ['waitlist', false],
    ['completed', false],
  ] as const)('%s deletable: %s', (status, deletable) => {
    expect(canDeleteEvent(status)).toBe(deletable);
  });

  it('words the refusal exactly as the specification', () => {
    expect(deletionRefusedMessage('selling')).toBe("Event im Status 'selling' kann nicht gelöscht werden");
  });
});

describe('payment link requirement', () => {
  it.each([
    ['free', false],
    ['full_payment', true],
    ['deposit', true],
    ['external_link', false],
  ] as const)('%s needs a provider link: %s', (model, needed) => {
    expect(requiresProviderLink(model)).toBe(needed);
  });
});
