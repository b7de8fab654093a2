import { describe, expect, it } from 'vitest';
import {
  eventTermsProblem,
  hasTwoDecimals,
  minorUnits,
  type EventTerms,
} from '../../src/modules/events/event-rules.js';

const base: EventTerms = {
  event_time_start: null,
  event_time_end: null,
  price: 0,
  currency: 'EUR',
  payment_model: 'free',
  deposit_amount: null,
  external_payment_url: null,
};

describe('event terms', () => {
  it.each([
    [{}, null],
    [{ event_time_start: '10:00:00', event_time_end: '11:30:00' }, null],
    [{ event_time_start: '10:00:00', event_time_end: '10:00:00' }, 'event_time_end'],
    [{ event_time_start: '10:00', event_time_end: '09:59:59' }, 'event_time_end'],
    [{ price: 19.99 }, null],
    [{ price: 19.999 }, 'decimal'],
    [{ price: -1 }, 'negative'],
    [{ price: 100000000 }, 'exceed'],
    [{ payment_model: 'full_payment', price: 0 }, "'price'"],
    [{ payment_model: 'full_payment', price: 25 }, null],
    [{ payment_model: 'deposit', price: 50, deposit_amount: null }, 'required'],
    [{ payment_model: 'deposit', price: 50, deposit_amount: 60 }, 'exceed'],
    [{ payment_model: 'deposit', price: 50, deposit_amount: 0 }, 'greater than 0'],
    [{ payment_model: 'deposit', price: 50, deposit_amount: 50 }, null],
    [{ payment_model: 'deposit', price: 50, deposit_amount: 10.5 }, null],
    [{ payment_model: 'external_link' }, 'external_payment_url'],
    [{ payment_model: 'external_link', external_payment_url: 'https://pay.example/x' }, null],
    [{ currency: 'JPY', price: 1500.5 }, 'whole amount'],
    [{ currency: 'JPY', price: 1500 }, null],
  ] as const)('%o → %s', (change, expected) => {
    const problem = eventTermsProblem({ ...base, ...change } as EventTerms);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem?.message).toContain(expected);
  });
});

describe('money helpers', () => {
  it.each([
    // A JSON number like 0.1 + 0.2 is 0.3 to anyone but a float: accepted.
    [0.1 + 0.2, true],
    [0.001, false],
    [0.3, true],
    [19.99, true],
    [1.005, false],
    [100, true],
  ])('%d has two decimals: %s', (value, expected) => {
    expect(hasTwoDecimals(value)).toBe(expected);
  });

  it.each([
    [19.99, 'EUR', 1999],
    [0.29, 'EUR', 29],
    [1500, 'JPY', 1500],
  ])('%d %s is %i minor units', (amount, currency, units) => {
    expect(minorUnits(amount, currency)).toBe(units);
  });
});
