/**
 * Cross-field rules of an event, checked on the merged record before it is written. Pure:
 * returns the first broken rule (sentence, code and field), or null.
 */
import type { ErrorCodeName } from '../../http/errors.js';
import type { PaymentModel } from './event-status.js';

export interface EventTerms {
  event_time_start: string | null;
  event_time_end: string | null;
  price: number;
  currency: string;
  payment_model: PaymentModel;
  deposit_amount: number | null;
  external_payment_url: string | null;
}

/** decimal(10,2): at most 8 digits before the point. */
export const MAX_AMOUNT = 99_999_999.99;

/** Currencies the payment provider charges in whole units (no cents). */
const ZERO_DECIMAL_CURRENCIES = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'JPY',
  'KMF',
  'KRW',
  'MGA',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);

/** True when value has at most two decimal places (tolerant of binary floating point). */
export function hasTwoDecimals(value: number): boolean {
  return Math.abs(value * 100 - Math.round(value * 100)) < 1e-6;
}

/** The amount in the currency's smallest unit, as the payment provider expects it. */
export function minorUnits(amount: number, currency: string): number {
  return ZERO_DECIMAL_CURRENCIES.has(currency) ? Math.round(amount) : Math.round(amount * 100);
}

/** 'HH:MM' or 'HH:MM:SS' as seconds since midnight. */
export function secondsOfDay(time: string): number {
  const [h = '0', m = '0', s = '0'] = time.split(':');
  return Number(h) * 3600 + Number(m) * 60 + Number(s);
}

/** A rule an event's terms break: the sentence, its code and the field it names. */
export interface TermsProblem {
  message: string;
  code: ErrorCodeName;
  field: string;
  limit?: number;
}

function moneyProblem(field: string, value: number | null, currency: string): TermsProblem | null {
  if (value === null) return null;
  if (value < 0) return { message: `Field '${field}' must not be negative`, code: 'amount_negative', field };
  if (value > MAX_AMOUNT) {
    return {
      message: `Field '${field}' must not exceed ${MAX_AMOUNT}`,
      code: 'amount_too_high',
      field,
      limit: MAX_AMOUNT,
    };
  }
  if (!hasTwoDecimals(value)) {
    return { message: `Field '${field}' must have at most 2 decimal places`, code: 'amount_decimals', field };
  }
  if (ZERO_DECIMAL_CURRENCIES.has(currency) && !Number.isInteger(value)) {
    return { message: `Field '${field}' must be a whole amount in ${currency}`, code: 'amount_whole', field };
  }
  return null;
}

export function eventTermsProblem(terms: EventTerms): TermsProblem | null {
  const { event_time_start: start, event_time_end: end } = terms;
  if (start !== null && end !== null && secondsOfDay(end) <= secondsOfDay(start)) {
    return {
      message: "Field 'event_time_end' must be after 'event_time_start'",
      code: 'time_order',
      field: 'event_time_end',
    };
  }
  const money =
    moneyProblem('price', terms.price, terms.currency) ??
    moneyProblem('deposit_amount', terms.deposit_amount, terms.currency);
  if (money) return money;
  switch (terms.payment_model) {
    case 'full_payment':
      if (terms.price <= 0) {
        return {
          message: "Field 'price' must be greater than 0 for payment_model 'full_payment'",
          code: 'price_required',
          field: 'price',
        };
      }
      break;
    case 'deposit':
      if (terms.deposit_amount === null || terms.deposit_amount <= 0) {
        return {
          message:
            terms.deposit_amount === null
              ? "Field 'deposit_amount' is required for payment_model 'deposit'"
              : "Field 'deposit_amount' must be greater than 0",
          code: 'deposit_required',
          field: 'deposit_amount',
        };
      }
      if (terms.deposit_amount > terms.price) {
        return {
          message: "Field 'deposit_amount' must not exceed 'price'",
          code: 'deposit_above_price',
          field: 'deposit_amount',
        };
      }
      break;
    case 'external_link':
      if (terms.external_payment_url === null) {
        return {
          message: "Field 'external_payment_url' is required for payment_model 'external_link'",
          code: 'payment_url_required',
          field: 'external_payment_url',
        };
      }
      break;
    case 'free':
      break;
  }
  return null;
}
