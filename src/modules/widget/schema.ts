import { Type } from '@sinclair/typebox';
import { ChatBlockSchema, ChatChoiceSchema } from '../chat/index.js';
import { nameSchemas } from '../../http/schemas.js';

const Color = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'Colour as #rrggbb' });

export const WidgetThemeSchema = Type.Object(
  {
    primary_color: Type.Optional(Color),
    text_color: Type.Optional(Color),
    background_color: Type.Optional(Color),
    position: Type.Optional(Type.Union([Type.Literal('bottom-right'), Type.Literal('bottom-left')])),
    greeting: Type.Optional(Type.String({ maxLength: 500, description: 'First bot bubble of the widget' })),
    avatar_url: Type.Optional(
      Type.String({
        maxLength: 2000,
        pattern: '^https://',
        description: 'https address of the avatar image',
      }),
    ),
  },
  { additionalProperties: false },
);

const ClockTime = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM' });

export const BusinessHoursSchema = Type.Object(
  {
    time_zone: Type.String({ maxLength: 60, description: 'IANA time zone, e.g. Europe/Berlin' }),
    hours: Type.Array(
      Type.Object(
        {
          day: Type.Integer({ minimum: 1, maximum: 7, description: '1 = Monday … 7 = Sunday' }),
          open: ClockTime,
          close: ClockTime,
        },
        { additionalProperties: false },
      ),
      { maxItems: 50 },
    ),
  },
  {
    additionalProperties: false,
    description:
      'When people answer in the widget; outside, the widget says when and asks for an e-mail address',
  },
);

const Origin = Type.String({
  maxLength: 300,
  description: 'A website origin, scheme://host[:port], e.g. https://www.example.com',
});

export const WidgetSettingsSchema = Type.Object({
  bot_id: Type.String({ format: 'uuid' }),
  enabled: Type.Boolean(),
  publishable_key: Type.String({
    description: 'pk_…: public, goes into the web page; starts visitor sessions only',
  }),
  allowed_origins: Type.Array(Type.String()),
  verified_only: Type.Boolean({ description: 'Refuse visitors without an identity token' }),
  identity_secret_set: Type.Boolean({
    description: 'Whether an identity secret exists (it is shown only once)',
  }),
  share_link_enabled: Type.Boolean({ description: 'The hosted page /c/<bot> is on' }),
  language: Type.Union([Type.Literal('de'), Type.Literal('en')]),
  theme: WidgetThemeSchema,
  daily_message_budget: Type.Integer({ description: 'Widget messages per bot and UTC day' }),
  business_hours: Type.Union([BusinessHoursSchema, Type.Null()]),
  reply_email: Type.Object(
    {
      enabled: Type.Boolean({
        description:
          'Whether replies of people go out by e-mail to an address a visitor leaves outside business hours ' +
          '(the service’s SMTP_URL is set); false: the widget asks for no address',
      }),
      from: Type.Union([Type.String(), Type.Null()], {
        description: 'The sender of those e-mails (MAIL_FROM), null while they are off',
      }),
    },
    { description: 'How a person’s reply reaches a visitor who left outside business hours' },
  ),
  updated_at: Type.String({ format: 'date-time' }),
});

export const WidgetSettingsBody = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    allowed_origins: Type.Optional(Type.Array(Origin, { maxItems: 50, uniqueItems: true })),
    verified_only: Type.Optional(Type.Boolean()),
    share_link_enabled: Type.Optional(Type.Boolean()),
    language: Type.Optional(Type.Union([Type.Literal('de'), Type.Literal('en')])),
    theme: Type.Optional(WidgetThemeSchema),
    daily_message_budget: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000 })),
    business_hours: Type.Optional(Type.Union([BusinessHoursSchema, Type.Null()])),
  },
  { additionalProperties: false },
);

export const IdentitySecretSchema = Type.Object({
  identity_secret: Type.String({ description: 'HS256 secret for identity tokens; shown only this once' }),
});

export const VisitorParams = Type.Object({
  id: Type.String({ description: 'Bot id (UUID)' }),
  visitorId: Type.String({ maxLength: 200, description: 'The visitor id (sender id of the conversations)' }),
});

export const VisitorContextSchema = Type.Object(
  {
    page_url: Type.Optional(Type.String({ maxLength: 2000, description: 'The page the visitor is on' })),
    page_title: Type.Optional(Type.String({ maxLength: 300 })),
    language: Type.Optional(
      Type.String({ maxLength: 35, description: 'The browser’s language, e.g. de-DE' }),
    ),
  },
  { additionalProperties: false, description: 'What the widget tells of the visitor, shown in the inbox' },
);

export const SessionBody = Type.Object(
  {
    publishable_key: Type.String({ maxLength: 64 }),
    visitor_id: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          'The id of an earlier session; kept only when the same request carries that session’s token (Authorization: Bearer)',
      }),
    ),
    identity_token: Type.Optional(
      Type.String({
        maxLength: 4096,
        description: 'HS256 JWT {visitor_id, name, email, exp} from the site’s backend',
      }),
    ),
    context: Type.Optional(VisitorContextSchema),
  },
  { additionalProperties: false },
);

export const AvailabilitySchema = Type.Object({
  open: Type.Boolean({ description: 'Whether a person answers now (always, without business hours)' }),
  next_open_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When people answer again, while closed',
  }),
  reply_by_email: Type.Optional(
    Type.Boolean({
      description:
        'Whether a person’s reply can also go out by e-mail (the service’s SMTP_URL is set): only then the ' +
        'widget asks for an address outside business hours',
    }),
  ),
});

export const WidgetBotSchema = Type.Object({
  name: Type.String(),
  language: Type.String(),
  theme: WidgetThemeSchema,
  greeting: Type.Union([Type.String(), Type.Null()]),
  availability: Type.Optional(AvailabilitySchema),
});

export const SessionSchema = Type.Object({
  token: Type.String({ description: 'Visitor token: send as Authorization: Bearer, never in a URL' }),
  expires_at: Type.String({ format: 'date-time' }),
  visitor_id: Type.String(),
  verified: Type.Boolean(),
  conversation_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  bot: WidgetBotSchema,
});

export const WidgetMessageBody = Type.Object(
  {
    text: Type.Optional(
      Type.String({ maxLength: 10000, description: 'The visitor’s message (1–10000 characters)' }),
    ),
    choice: Type.Optional(ChatChoiceSchema),
    context: Type.Optional(VisitorContextSchema),
  },
  { additionalProperties: false },
);

export const TranscriptMessageSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  from: Type.Union([Type.Literal('visitor'), Type.Literal('bot'), Type.Literal('person')]),
  text: Type.String(),
  author: Type.Optional(
    Type.Object({
      name: Type.String({ description: 'Display name of the person who wrote it (their first name)' }),
      avatar_url: Type.Optional(Type.String({ description: 'https address of their picture, when set' })),
    }),
  ),
  blocks: Type.Optional(Type.Array(ChatBlockSchema)),
  created_at: Type.String({ format: 'date-time' }),
});

/** 202 of a message while people hold the conversation: stored for them, the bot stays silent. */
export const WidgetKeptMessageSchema = Type.Object(
  {
    status: Type.Literal('handed_over'),
    conversation_id: Type.String({ format: 'uuid' }),
    message: TranscriptMessageSchema,
  },
  { additionalProperties: false },
);

export const TranscriptSchema = Type.Object({
  conversation_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  status: Type.Union([
    Type.Literal('active'),
    Type.Literal('handed_over'),
    Type.Literal('ended'),
    Type.Null(),
  ]),
  messages: Type.Array(TranscriptMessageSchema),
});

export const VisitorExportSchema = Type.Object({
  visitor_id: Type.String(),
  bot_id: Type.String({ format: 'uuid' }),
  refusals: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
    description: "The visitor's messages a guard refused to answer (the daily budget), with their excerpt",
  }),
  conversations: Type.Array(
    Type.Object({
      id: Type.String({ format: 'uuid' }),
      status: Type.String(),
      created_at: Type.String({ format: 'date-time' }),
      metadata: Type.Unknown(),
      messages: Type.Array(TranscriptMessageSchema),
    }),
  ),
});

export const TypingAccepted = Type.Object({ ok: Type.Boolean() });

export const ReplyAddressBody = Type.Object(
  {
    email: Type.String({
      minLength: 3,
      maxLength: 320,
      description: 'Where a person’s reply goes by e-mail',
    }),
  },
  { additionalProperties: false },
);
export const ReplyAddressSchema = Type.Object({ email: Type.String() });

export const VisitorRatingBody = Type.Object(
  {
    rating: Type.Integer({ minimum: 1, maximum: 5 }),
    comment: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export const VisitorRatingSchema = Type.Object({
  conversation_id: Type.String({ format: 'uuid' }),
  rating: Type.Integer(),
  comment: Type.Union([Type.String(), Type.Null()]),
});

export const DeletedSchema = Type.Object({ deleted_conversations: Type.Integer() });

nameSchemas({
  WidgetTheme: WidgetThemeSchema,
  WidgetBusinessHours: BusinessHoursSchema,
  WidgetSettings: WidgetSettingsSchema,
  WidgetSession: SessionSchema,
  WidgetTranscriptMessage: TranscriptMessageSchema,
  WidgetTranscript: TranscriptSchema,
});
