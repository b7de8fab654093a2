import { Type, type TLiteral, type TOptional, type TSchema, type TUnion } from '@sinclair/typebox';
import { PageQuery } from '../../shared/pagination.js';
import { BOOKING_CHANNELS, BOOKING_STATUSES, PAYMENT_STATUSES } from './bookings/status.js';
import { EVENT_STATUSES, PAYMENT_MODELS } from './event-status.js';
import { MAX_AMOUNT } from './event-rules.js';
import { nameSchemas } from '../../http/schemas.js';

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
function literals<T extends string>(values: readonly T[], description?: string): TUnion<TLiteral<T>[]> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    description ? { description } : {},
  );
}

const Time = Type.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$',
  description: 'Local time HH:MM or HH:MM:SS',
});
const HttpUrl = (maxLength: number) =>
  Type.String({
    format: 'uri',
    pattern: '^https?://',
    maxLength,
    description: `http(s) URL, at most ${maxLength} characters`,
  });
const Amount = (description: string) =>
  Type.Number({ minimum: 0, maximum: MAX_AMOUNT, description: `${description}; at most 2 decimal places` });
const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: 'Free-form data' });

const eventFields = {
  title: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
  description: nullable(Type.String({ maxLength: 20000 })),
  location: nullable(Type.String({ maxLength: 500 })),
  image_url: nullable(HttpUrl(1000)),
  event_date: Type.String({ format: 'date', description: 'YYYY-MM-DD' }),
  event_time_start: nullable(Time),
  event_time_end: nullable({ ...Time, description: 'Must be after event_time_start' }),
  booking_deadline: nullable(
    Type.String({ format: 'date-time', description: 'Bookings are accepted until this moment' }),
  ),
  capacity_total: Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Places' }),
  waitlist_max: nullable(
    Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Waitlist size; null means unlimited' }),
  ),
  price: Amount('Price per booking'),
  currency: Type.String({
    pattern: '^[A-Za-z]{3}$',
    description: 'ISO 4217 code, e.g. EUR (stored upper-case)',
  }),
  payment_model: literals(PAYMENT_MODELS),
  deposit_amount: nullable(Amount('Deposit; required and at most price for payment_model deposit')),
  external_payment_url: nullable(HttpUrl(1000)),
  bot_id: nullable(
    Type.String({ format: 'uuid', description: 'Assigned bot of the tenant; null: all bots' }),
  ),
  metadata: Metadata,
};

type Optionalised<T extends Record<string, TSchema>> = { [K in keyof T]: TOptional<T[K]> };
function optional<T extends Record<string, TSchema>>(fields: T): Optionalised<T> {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Type.Optional(v)])) as Optionalised<T>;
}

const { title, event_date, capacity_total, ...rest } = eventFields;

export const CreateEventBody = Type.Object(
  { title, event_date, capacity_total, ...optional(rest) },
  { additionalProperties: false },
);

export const UpdateEventBody = Type.Object(optional(eventFields), {
  additionalProperties: false,
  description:
    'Fields to change; left out: kept, null: cleared. status has its own endpoint; payment terms are fixed after draft.',
});

export const EventStatusBody = Type.Object(
  { status: literals(EVENT_STATUSES, 'Requested status') },
  { additionalProperties: false },
);

export const EventListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(literals(EVENT_STATUSES)),
  from_date: Type.Optional(Type.String({ format: 'date', description: 'Events on or after this date' })),
  to_date: Type.Optional(Type.String({ format: 'date', description: 'Events on or before this date' })),
  bot_id: Type.Optional(Type.String({ format: 'uuid' })),
  sort: Type.Optional(
    Type.Union([Type.Literal('event_date'), Type.Literal('-event_date')], {
      default: 'event_date',
      description: 'By start (date, then time): event_date ascending (default), -event_date descending',
    }),
  ),
});

export const EventSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    bot_id: nullable(Type.String()),
    created_by: nullable(Type.String()),
    title: Type.String(),
    description: nullable(Type.String()),
    location: nullable(Type.String()),
    image_url: nullable(Type.String()),
    event_date: Type.String({ format: 'date' }),
    event_time_start: nullable(Type.String()),
    event_time_end: nullable(Type.String()),
    booking_deadline: nullable(Type.String({ format: 'date-time' })),
    capacity_total: Type.Integer(),
    capacity_booked: Type.Integer({ description: 'Places taken (confirmed, attended, no-show)' }),
    capacity_waitlist: Type.Integer({ description: 'Bookings on the waitlist' }),
    waitlist_max: nullable(Type.Integer()),
    price: Type.Number(),
    currency: Type.String(),
    payment_model: literals(PAYMENT_MODELS),
    deposit_amount: nullable(Type.Number()),
    provider_payment_link: nullable(Type.String({ description: 'Set when a paid event starts selling' })),
    external_payment_url: nullable(Type.String()),
    status: literals(EVENT_STATUSES),
    metadata: Metadata,
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Event' },
);

export const EventStatisticsSchema = Type.Object({
  confirmed: Type.Integer(),
  waitlist: Type.Integer(),
  cancelled: Type.Integer(),
  attended: Type.Integer(),
  no_show: Type.Integer(),
  free_places: Type.Integer(),
  utilization: nullable(
    Type.Number({ description: 'capacity_booked / capacity_total (0..1); null without capacity' }),
  ),
  waitlist_room: nullable(Type.Integer({ description: 'Free waitlist spots; null means unlimited' })),
  amount_paid: Type.Number(),
  amount_pending: Type.Number({ description: 'Pending payments of bookings that are not cancelled' }),
  amount_refunded: Type.Number(),
});

export const EventDetailSchema = Type.Intersect(
  [EventSchema, Type.Object({ statistics: EventStatisticsSchema })],
  {
    title: 'EventDetail',
  },
);

export const BookingIdParams = Type.Object({
  eventId: Type.String({ description: 'Event id (UUID)' }),
  bookingId: Type.String({ description: 'Booking id (UUID)' }),
});

export const CreateBookingBody = Type.Object(
  {
    contact_id: Type.String({ format: 'uuid', description: 'A contact of the tenant' }),
    channel: Type.Optional(literals(BOOKING_CHANNELS, 'Booking channel (default manual)')),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);

export const BookingStatusBody = Type.Object(
  {
    status: literals(BOOKING_STATUSES, 'Requested status: attended, no_show or cancelled'),
    reason: Type.Optional(Type.String({ maxLength: 500, description: 'Why (reported with a cancellation)' })),
  },
  { additionalProperties: false },
);

export const BookingListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(literals(BOOKING_STATUSES)),
});

export const BookingSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    event_id: Type.String({ format: 'uuid' }),
    contact_id: Type.String({ format: 'uuid' }),
    status: literals(BOOKING_STATUSES),
    waitlist_position: nullable(Type.Integer()),
    payment_status: literals(PAYMENT_STATUSES),
    payment_amount: nullable(Type.Number()),
    payment_url: nullable(
      Type.String({
        description: 'Where this booking pays: provider link tied to the booking, or the external URL',
      }),
    ),
    provider_payment_intent_id: nullable(Type.String()),
    booking_channel: literals(BOOKING_CHANNELS),
    booked_at: nullable(Type.String({ format: 'date-time' })),
    cancelled_at: nullable(Type.String({ format: 'date-time' })),
    metadata: Metadata,
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Booking' },
);

export const BookingWithContactSchema = Type.Intersect([
  BookingSchema,
  Type.Object({
    contact: Type.Object({
      id: Type.String({ format: 'uuid' }),
      name: nullable(Type.String()),
      email: nullable(Type.String()),
      phone: nullable(Type.String()),
    }),
  }),
]);

export const BookingChangeResponse = Type.Object({
  booking: BookingSchema,
  promoted: Type.Array(BookingSchema, {
    description: 'Waitlist bookings that moved up into the freed place',
  }),
});

// Named component schemas of the OpenAPI document.
nameSchemas({ Event: EventSchema, EventStatistics: EventStatisticsSchema, Booking: BookingSchema });
