import type { Body, EventRow } from '../../api/types';

type EventPut = Body<'/api/events/{id}', 'put'>;
const orNull = (value: string) => value.trim() || null;
const numberOrNull = (value: number | string) => (value === '' ? null : Number(value));

export const PAYMENT_MODELS = ['free', 'full_payment', 'deposit', 'external_link'] as const;

/** Payment models with a price: a free event has none (0). */
export const hasPrice = (paymentModel: string) => paymentModel !== 'free';
/** Payment models the server refuses without a price above 0. */
export const needsPrice = (paymentModel: string) =>
  paymentModel === 'full_payment' || paymentModel === 'deposit';

export interface PaymentValues {
  price: number | string;
  currency: string;
  payment_model: string;
  deposit_amount: number | string;
  external_payment_url: string;
}

/** The i18n keys of what is missing in the payment terms, by field (the server's rules, said first). */
export function paymentProblems(values: PaymentValues): Partial<Record<keyof PaymentValues, string>> {
  const problems: Partial<Record<keyof PaymentValues, string>> = {};
  const price = Number(values.price);
  if (needsPrice(values.payment_model) && !(values.price !== '' && price > 0)) {
    problems.price = 'events.priceRequired';
  }
  if (values.payment_model === 'deposit') {
    const deposit = Number(values.deposit_amount);
    if (values.deposit_amount === '' || !(deposit > 0)) problems.deposit_amount = 'events.depositRequired';
    else if (price > 0 && deposit > price) problems.deposit_amount = 'events.depositAbovePrice';
  }
  if (
    values.payment_model === 'external_link' &&
    !/^https?:\/\/\S+$/.test(values.external_payment_url.trim())
  ) {
    problems.external_payment_url = 'events.externalUrlRequired';
  }
  return problems;
}

/** The payment terms as the API takes them: no price for a free event, each extra only where it applies. */
export function paymentBody(values: PaymentValues) {
  return {
    price: hasPrice(values.payment_model) ? Number(values.price) || 0 : 0,
    currency: values.currency.trim().toUpperCase(),
    payment_model: values.payment_model as EventPut['payment_model'] & string,
    deposit_amount: values.payment_model === 'deposit' ? numberOrNull(values.deposit_amount) : null,
    external_payment_url:
      values.payment_model === 'external_link' ? orNull(values.external_payment_url) : null,
  };
}

export interface EventValues {
  title: string;
  event_date: string;
  event_time_start: string;
  event_time_end: string;
  location: string;
  description: string;
  capacity_total: number | string;
  waitlist_max: number | string;
  price: number | string;
  currency: string;
  payment_model: string;
  deposit_amount: number | string;
  external_payment_url: string;
}

export function eventValues(event: EventRow): EventValues {
  return {
    title: event.title,
    event_date: event.event_date,
    event_time_start: event.event_time_start?.slice(0, 5) ?? '',
    event_time_end: event.event_time_end?.slice(0, 5) ?? '',
    location: event.location ?? '',
    description: event.description ?? '',
    capacity_total: event.capacity_total,
    waitlist_max: event.waitlist_max ?? '',
    price: event.price,
    currency: event.currency,
    payment_model: event.payment_model,
    deposit_amount: event.deposit_amount ?? '',
    external_payment_url: event.external_payment_url ?? '',
  };
}

/**
 * The PUT body for the edited values: the event's fields, and the payment terms only while the
 * event is a draft (they are fixed once it sells).
 */
export function eventPutBody(values: EventValues, draft: boolean): EventPut {
  const body: EventPut = {
    title: values.title.trim(),
    event_date: values.event_date,
    event_time_start: orNull(values.event_time_start),
    event_time_end: orNull(values.event_time_end),
    location: orNull(values.location),
    description: orNull(values.description),
    capacity_total: Number(values.capacity_total),
    waitlist_max: numberOrNull(values.waitlist_max),
  };
  if (!draft) return body;
  return { ...body, ...paymentBody(values) };
}

/** The form's fields, in the order the API's refusals are placed. */
export const FIELDS: readonly (keyof EventValues)[] = [
  'title',
  'event_date',
  'event_time_start',
  'event_time_end',
  'location',
  'description',
  'capacity_total',
  'waitlist_max',
  'price',
  'currency',
  'payment_model',
  'deposit_amount',
  'external_payment_url',
];

/** The end of an event after its start, when both are given. */
export function timeOrderProblem(
  values: { event_time_start: string; event_time_end: string },
  t: (key: string) => string,
): string | null {
  const { event_time_start: start, event_time_end: end } = values;
  return start && end && end <= start ? t('events.timeEndBeforeStart') : null;
}

/** Form validators for the payment terms, in the user's language. */
export function paymentValidation(t: (key: string) => string) {
  const check = (field: keyof PaymentValues) => (_value: unknown, values: PaymentValues) => {
    const key = paymentProblems(values)[field];
    return key ? t(key) : null;
  };
  return {
    price: check('price'),
    deposit_amount: check('deposit_amount'),
    external_payment_url: check('external_payment_url'),
  };
}
