import { describe, expect, it } from 'vitest';
import { paymentBody, paymentProblems, timeOrderProblem } from './event-form';

const terms = (overrides: Partial<Parameters<typeof paymentBody>[0]>) => ({
  price: '' as number | string,
  currency: 'eur',
  payment_model: 'free',
  deposit_amount: '' as number | string,
  external_payment_url: '',
  ...overrides,
});

describe('event payment terms', () => {
  it('a free event has no price: 0 is sent whatever was typed, nothing is required', () => {
    const values = terms({ price: 12, deposit_amount: 5 });
    expect(paymentProblems(values)).toEqual({});
    expect(paymentBody(values)).toEqual({
      price: 0,
      currency: 'EUR',
      payment_model: 'free',
      deposit_amount: null,
      external_payment_url: null,
    });
  });

  it('full payment and deposit need a price above 0; a deposit needs an amount up to the price', () => {
    expect(paymentProblems(terms({ payment_model: 'full_payment' }))).toEqual({
      price: 'events.priceRequired',
    });
    expect(paymentProblems(terms({ payment_model: 'deposit', price: 20 }))).toEqual({
      deposit_amount: 'events.depositRequired',
    });
    expect(paymentProblems(terms({ payment_model: 'deposit', price: 20, deposit_amount: 25 }))).toEqual({
      deposit_amount: 'events.depositAbovePrice',
    });
    const deposit = terms({ payment_model: 'deposit', price: 20, deposit_amount: 5 });
    expect(paymentProblems(deposit)).toEqual({});
    expect(paymentBody(deposit)).toMatchObject({ price: 20, deposit_amount: 5, external_payment_url: null });
  });

  it('an external link needs its address; its price is optional', () => {
    expect(paymentProblems(terms({ payment_model: 'external_link' }))).toEqual({
      external_payment_url: 'events.externalUrlRequired',
    });
    const linked = terms({ payment_model: 'external_link', external_payment_url: ' https://pay.example/x ' });
    expect(paymentProblems(linked)).toEqual({});
    expect(paymentBody(linked)).toMatchObject({ price: 0, external_payment_url: 'https://pay.example/x' });
  });

  it('the end of an event lies after its start', () => {
    const t = (key: string) => key;
    expect(timeOrderProblem({ event_time_start: '10:00', event_time_end: '09:00' }, t)).toBe(
      'events.timeEndBeforeStart',
    );
    expect(timeOrderProblem({ event_time_start: '10:00', event_time_end: '10:00' }, t)).toBe(
      'events.timeEndBeforeStart',
    );
    expect(timeOrderProblem({ event_time_start: '10:00', event_time_end: '11:30' }, t)).toBeNull();
    expect(timeOrderProblem({ event_time_start: '', event_time_end: '11:30' }, t)).toBeNull();
  });
});
