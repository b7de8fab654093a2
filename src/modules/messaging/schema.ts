import { Type, type Static } from '@sinclair/typebox';

const DateTime = Type.String({ format: 'date-time' });
const NullableDateTime = Type.Union([DateTime, Type.Null()]);

export const CONNECTION_KINDS = ['whatsapp_cloud', 'twilio_sms', 'twilio_whatsapp', 'twilio_voice'] as const;

const E164 = Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', description: 'E.164, e.g. +4930123456' });
const Secret = (description: string) => Type.String({ minLength: 1, maxLength: 1000, description });
const BaseUrl = Type.String({
  minLength: 8,
  maxLength: 500,
  pattern: '^https?://[^\\s/?#]+(/[^\\s?#]*)?$',
  description: "Overrides PUBLIC_BASE_URL for this connection's webhook URLs (the URL the provider calls)",
});

const Span = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]-([01][0-9]|2[0-4]):[0-5][0-9]$' });
const Spans = Type.Array(Span, { maxItems: 6 });
const OpeningHours = Type.Object(
  {
    time_zone: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'IANA time zone, e.g. Europe/Berlin',
    }),
    days: Type.Object(
      {
        mon: Type.Optional(Spans),
        tue: Type.Optional(Spans),
        wed: Type.Optional(Spans),
        thu: Type.Optional(Spans),
        fri: Type.Optional(Spans),
        sat: Type.Optional(Spans),
        sun: Type.Optional(Spans),
      },
      {
        additionalProperties: false,
        description: 'Per weekday its spans "HH:MM-HH:MM"; a day left out is closed',
      },
    ),
  },
  { additionalProperties: false },
);

/** The fields of every kind; which a kind needs is checked by the service. */
const Fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  is_active: Type.Boolean(),
  phone_number_id: Type.String({
    minLength: 1,
    maxLength: 50,
    pattern: '^[0-9]+$',
    description: 'whatsapp_cloud',
  }),
  business_account_id: Type.String({
    minLength: 1,
    maxLength: 50,
    pattern: '^[0-9]+$',
    description: 'whatsapp_cloud: the WhatsApp Business Account id (templates)',
  }),
  access_token: Secret('whatsapp_cloud: permanent (system user) access token; write-only'),
  app_secret: Secret('whatsapp_cloud: the Meta app secret that signs webhooks; write-only'),
  verify_token: Secret('whatsapp_cloud: the verify token entered in the Meta console; write-only'),
  account_sid: Type.String({ pattern: '^AC[0-9a-fA-F]{32}$', description: 'Twilio Account SID' }),
  auth_token: Secret('Twilio auth token; write-only'),
  from_number: Type.Union([E164], {
    description: 'twilio_sms / twilio_whatsapp: the sender, without whatsapp:',
  }),
  phone_number: Type.Union([E164], { description: 'twilio_voice: the number called' }),
  handoff_number: Type.Union([E164, Type.Null()], { description: 'twilio_voice: where a person takes over' }),
  mode: Type.Union([Type.Literal('relay'), Type.Literal('gather')], {
    description: 'twilio_voice; default relay',
  }),
  public_base_url: Type.Union([BaseUrl, Type.Null()]),
  language: Type.Union(
    ['de', 'en', 'fr', 'it'].map((l) => Type.Literal(l)),
    { description: 'twilio_voice: the language a call starts in (the caller may switch); default de' },
  ),
  greeting: Type.Union([Type.String({ minLength: 1, maxLength: 500 }), Type.Null()], {
    description: "twilio_voice: said when a call is answered; null: a short greeting with the bot's name",
  }),
  opening_hours: Type.Union([OpeningHours, Type.Null()], {
    description: 'twilio_voice: when a person takes a hand-over; null: always',
  }),
  max_call_seconds: Type.Integer({
    minimum: 60,
    maximum: 3600,
    description: 'twilio_voice: a call ends politely after this long (default 600)',
  }),
  calls_per_caller_per_hour: Type.Integer({
    minimum: 1,
    maximum: 1000,
    description:
      'twilio_voice: calls one number may make per hour before it is told to try later (default 5)',
  }),
  quiet_window_ms: Type.Integer({
    minimum: 0,
    maximum: 6000,
    description:
      'Messages of one customer within this many milliseconds are answered as one turn (default 1500)',
  }),
};

const optional = Type.Partial(Type.Object(Fields)).properties;

export const CreateConnectionBody = Type.Object(
  {
    kind: Type.Union(
      CONNECTION_KINDS.map((k) => Type.Literal(k)),
      { description: 'whatsapp_cloud (Meta), twilio_sms, twilio_whatsapp, twilio_voice' },
    ),
    ...optional,
    name: Fields.name,
  },
  { additionalProperties: false },
);
export type CreateConnectionBody = Static<typeof CreateConnectionBody>;

export const UpdateConnectionBody = Type.Object(optional, { additionalProperties: false, minProperties: 1 });
export type UpdateConnectionBody = Static<typeof UpdateConnectionBody>;

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const ConnectionSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    bot_id: Type.String({ format: 'uuid' }),
    kind: Type.String(),
    name: Type.String(),
    is_active: Type.Boolean(),
    phone_number_id: Nullable(Type.String()),
    business_account_id: Nullable(Type.String()),
    account_sid: Nullable(Type.String()),
    from_number: Nullable(Type.String()),
    phone_number: Nullable(Type.String()),
    handoff_number: Nullable(Type.String()),
    mode: Nullable(Type.String()),
    public_base_url: Nullable(Type.String()),
    quiet_window_ms: Type.Integer(),
    language: Type.Union([Type.String(), Type.Null()], { description: 'twilio_voice (default de)' }),
    greeting: Type.Union([Type.String(), Type.Null()]),
    opening_hours: Type.Union([OpeningHours, Type.Null()]),
    max_call_seconds: Type.Union([Type.Integer(), Type.Null()], {
      description: 'twilio_voice (default 600)',
    }),
    calls_per_caller_per_hour: Type.Union([Type.Integer(), Type.Null()], {
      description: 'twilio_voice (default 5)',
    }),
    secrets_set: Type.Array(Type.String(), {
      description: 'Names of the secrets that are set (never their values)',
    }),
    webhook_url: Type.String({
      description:
        'Enter this URL in the provider console (Meta: callback URL; Twilio: "A message comes in")',
    }),
    status_callback_url: Nullable(
      Type.String({ description: 'Twilio: where statuses are sent (Meta sends them to webhook_url)' }),
    ),
    health: Type.Object({
      healthy: Type.Boolean({ description: 'False while the provider refuses the credentials' }),
      unhealthy_since: NullableDateTime,
      last_inbound_at: NullableDateTime,
      last_outbound_at: NullableDateTime,
      last_error: Nullable(Type.String({ description: 'In words' })),
      last_error_code: Nullable(Type.String()),
      last_error_at: NullableDateTime,
      error_counts: Type.Array(
        Type.Object({ day: Type.String(), code: Type.String(), count: Type.Integer() }),
        { description: 'Provider error codes per day, the last 7 days' },
      ),
      statuses: Type.Record(Type.String(), Type.Integer(), {
        description: 'Outbound messages of the last 24 hours by delivery status',
      }),
    }),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'ChannelConnection', title: 'ChannelConnection' },
);

export const ConnectionList = Type.Object({ data: Type.Array(ConnectionSchema) });

export const ConnectionParams = Type.Object({
  id: Type.String({ description: 'Bot id (UUID)' }),
  connectionId: Type.String({ description: 'Connection id (UUID)' }),
});

export const ChannelParams = Type.Object({
  connectionId: Type.String({ description: 'Connection id (UUID)' }),
});

export const VerifyQuery = Type.Object(
  {
    'hub.mode': Type.Optional(Type.String()),
    'hub.verify_token': Type.Optional(Type.String()),
    'hub.challenge': Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export const ChannelStateSchema = Type.Object(
  {
    connection_id: Type.String({ format: 'uuid' }),
    kind: Type.String(),
    customer_number: Type.String({ description: 'E.164' }),
    opted_out: Type.Boolean({
      description: 'The number wrote STOP (or Twilio answered 21610): nothing is sent',
    }),
    window: Type.Union(
      [
        Type.Object({
          open: Type.Boolean(),
          closes_at: NullableDateTime,
          remaining_seconds: Type.Integer({ minimum: 0 }),
        }),
        Type.Null(),
      ],
      { description: "WhatsApp's 24-hour customer-service window; null for SMS" },
    ),
    messages: Type.Array(
      Type.Object({
        id: Type.String({ format: 'uuid' }),
        purpose: Type.String({ description: 'reply (the bot), person (the inbox), notice' }),
        status: Type.String({
          description:
            'queued, sending, unknown, accepted, sent, delivered, read, failed, undelivered, refused',
        }),
        error_code: Type.Union([Type.String(), Type.Null()]),
        error: Type.Union([Type.String(), Type.Null()], { description: 'In words' }),
        parts: Type.Integer({ description: 'Messages it went out as (SMS parts)' }),
        created_at: DateTime,
        sent_at: NullableDateTime,
      }),
    ),
  },
  { $id: 'ChannelConversationState', title: 'ChannelConversationState' },
);

/** A person's template message from the inbox (POST /api/inbox/:id/template). */
export const TemplateSendBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 512 }),
    language: Type.String({ minLength: 1, maxLength: 20 }),
    parameters: Type.Array(Type.String({ maxLength: 1024 }), {
      maxItems: 20,
      description:
        "The template's parameters in the order its `parameters` list them (header, body, URL buttons); as many as it has",
    }),
  },
  { additionalProperties: false },
);
