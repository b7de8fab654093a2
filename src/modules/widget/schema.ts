import { Type } from '@sinclair/typebox';
import { ChatBlockSchema, ChatChoiceSchema } from '../chat/schema.js';
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
  },
  { additionalProperties: false },
);

export const WidgetBotSchema = Type.Object({
  name: Type.String(),
  language: Type.String(),
  theme: WidgetThemeSchema,
  greeting: Type.Union([Type.String(), Type.Null()]),
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
  },
  { additionalProperties: false },
);

export const TranscriptMessageSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  from: Type.Union([Type.Literal('visitor'), Type.Literal('bot'), Type.Literal('person')]),
  text: Type.String(),
  blocks: Type.Optional(Type.Array(ChatBlockSchema)),
  created_at: Type.String({ format: 'date-time' }),
});

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

export const DeletedSchema = Type.Object({ deleted_conversations: Type.Integer() });

nameSchemas({
  WidgetTheme: WidgetThemeSchema,
  WidgetSettings: WidgetSettingsSchema,
  WidgetSession: SessionSchema,
  WidgetTranscriptMessage: TranscriptMessageSchema,
  WidgetTranscript: TranscriptSchema,
});
