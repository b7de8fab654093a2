import { Type } from '@sinclair/typebox';
import { PageQuery } from '../../shared/pagination.js';
import { CONTACT_CHANNELS } from './repository.js';
import { nameSchemas } from '../../http/schemas.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

const Name = Type.String({ minLength: 1, maxLength: 200, description: 'Display name' });
const Email = Type.String({ format: 'email', maxLength: 255, description: 'E-mail address' });
const Phone = Type.String({
  minLength: 3,
  maxLength: 50,
  pattern: '^\\+?[0-9 ()./-]+$',
  description: 'Phone number (digits, spaces, + ( ) . / -)',
});
const SenderId = Type.String({
  minLength: 1,
  maxLength: 255,
  description: "Channel identifier of the person, e.g. the chat request's sender_id; unique per tenant",
});
const Channel = Type.Union(
  CONTACT_CHANNELS.map((c) => Type.Literal(c)),
  { description: 'Channel the contact was first reached on' },
);
const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: 'Free-form data' });

const writable = {
  name: Type.Optional(Nullable(Name)),
  email: Type.Optional(Nullable(Email)),
  phone: Type.Optional(Nullable(Phone)),
  sender_id: Type.Optional(Nullable(SenderId)),
  channel: Type.Optional(Type.Union([Channel, Type.Null()])),
  metadata: Type.Optional(Metadata),
};

export const CreateContactBody = Type.Object(writable, { additionalProperties: false });
export const UpdateContactBody = Type.Object(writable, {
  additionalProperties: false,
  description: 'Fields to change; a field set to null is cleared, a field left out is kept',
});

export const ContactListQuery = Type.Object({
  ...PageQuery,
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Substring of name, e-mail, phone or sender_id',
    }),
  ),
});

export const ContactSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.Union([Type.String(), Type.Null()]),
    email: Type.Union([Type.String(), Type.Null()]),
    phone: Type.Union([Type.String(), Type.Null()]),
    sender_id: Type.Union([Type.String(), Type.Null()]),
    channel: Type.Union([Type.String(), Type.Null()]),
    metadata: Metadata,
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Contact' },
);

export const ContactMailBounceSchema = Type.Object(
  {
    address: Type.String({ description: 'The address the reply went to (lower case)' }),
    detail: Type.Union([Type.String(), Type.Null()], {
      description: "The receiving server's words from the delivery report",
    }),
    at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the report arrived',
    }),
  },
  { title: 'ContactMailBounce' },
);

/** One contact with what the e-mail channel knows about its address. */
export const ContactDetailSchema = Type.Object(
  {
    ...ContactSchema.properties,
    email_bounced: Type.Union([ContactMailBounceSchema, Type.Null()], {
      description:
        "The latest bot or staff reply to the contact's e-mail address that came back undeliverable (a delivery report naming our Message-ID); null when none did",
    }),
  },
  { title: 'ContactDetail' },
);

// Named component schemas of the OpenAPI document.
nameSchemas({
  Contact: ContactSchema,
  ContactDetail: ContactDetailSchema,
  ContactMailBounce: ContactMailBounceSchema,
});

export const ContactBookingSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Booking id' }),
    event_id: Type.String({ format: 'uuid' }),
    event_title: Type.String(),
    event_date: Type.String({ format: 'date' }),
    event_status: Type.String({ description: 'Status of the event' }),
    status: Type.String({ description: 'confirmed, waitlist, cancelled, attended or no_show' }),
    waitlist_position: Type.Union([Type.Integer(), Type.Null()]),
    payment_status: Type.String({ description: 'not_required, pending, paid or refunded' }),
    payment_amount: Type.Union([Type.Number(), Type.Null()]),
    currency: Type.String({ description: 'Currency of the event' }),
    booking_channel: Type.String(),
    booked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    cancelled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'ContactBooking' },
);

export const ContactLeadSchema = Type.Object(
  {
    conversation_id: Type.String({ format: 'uuid' }),
    bot_id: Type.String({ format: 'uuid' }),
    bot_name: Type.String(),
    channel: Type.String(),
    sender_id: Type.Union([Type.String(), Type.Null()]),
    status: Type.String({ description: 'Conversation status: active, ended or handed_over' }),
    message_count: Type.Integer({ minimum: 0 }),
    last_message_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'ContactLead', description: 'A conversation linked to the contact by a recorded lead' },
);

export const ContactSubListQuery = Type.Object(PageQuery, { additionalProperties: false });

nameSchemas({ ContactBooking: ContactBookingSchema, ContactLead: ContactLeadSchema });

export const ResolveContactBody = Type.Object(
  {
    name: Type.Optional(Nullable(Name)),
    email: Type.Optional(Nullable(Email)),
    phone: Type.Optional(Nullable(Phone)),
    channel: Type.Optional(Type.Union([Channel, Type.Null()])),
  },
  {
    additionalProperties: false,
    description: 'An e-mail address or a phone number (or both) that identify the person',
  },
);

export const MergeContactBody = Type.Object(
  { contact_id: Type.String({ description: 'The contact merged into this one (deleted afterwards)' }) },
  { additionalProperties: false },
);

export const PersonConversationSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    bot_id: Type.String({ format: 'uuid' }),
    bot_name: Type.String(),
    channel: Type.String(),
    sender_id: Type.Union([Type.String(), Type.Null()]),
    status: Type.String(),
    message_count: Type.Integer({ minimum: 0 }),
    last_message_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'PersonConversation' },
);

export const PersonConversationsQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })) },
  { additionalProperties: false },
);

const Row = Type.Record(Type.String(), Type.Unknown());

export const PersonExportSchema = Type.Object(
  {
    exported_at: Type.String({ format: 'date-time' }),
    contact: ContactSchema,
    bookings: Type.Array(Row),
    conversations: Type.Array(Row, { description: 'Each conversation with its messages' }),
    refusals: Type.Array(Row, {
      description:
        "The person's messages a guard refused to answer (opt-out, loop guard, budget), in their conversations or outside any, with the message's excerpt",
    }),
  },
  { title: 'PersonExport' },
);

export const PersonErasureSchema = Type.Object(
  {
    contact_id: Type.String({ format: 'uuid' }),
    conversations: Type.Integer(),
    messages: Type.Integer(),
    bookings: Type.Integer(),
    cancelled_bookings: Type.Integer({ description: 'Open bookings cancelled before the erasure' }),
  },
  { title: 'PersonErasure' },
);
