import { Type, type Static } from '@sinclair/typebox';
import { Page, PageQuery } from '../../shared/pagination.js';

const DateTime = Type.String({ format: 'date-time' });
const NullableDateTime = Type.Union([DateTime, Type.Null()]);

export const MAILBOX_KINDS = ['imap', 'graph', 'postmark'] as const;
export type MailboxKind = (typeof MAILBOX_KINDS)[number];

const Kind = Type.Union(
  MAILBOX_KINDS.map((k) => Type.Literal(k)),
  {
    description:
      'imap: IMAP in, SMTP out; graph: Microsoft 365 through Microsoft Graph; postmark: Postmark inbound webhook in, SMTP out',
  },
);

const Address = Type.String({ minLength: 3, maxLength: 320, format: 'email' });
const Host = Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.-]+$' });
const Port = Type.Integer({ minimum: 1, maximum: 65535 });

/** Connection settings without secrets; which fields a kind needs is checked by the service. */
export const MailboxSettings = Type.Object(
  {
    imap_host: Type.Optional(Host),
    imap_port: Type.Optional(Port),
    imap_tls: Type.Optional(
      Type.Boolean({ description: 'Implicit TLS (port 993); false: STARTTLS when offered' }),
    ),
    imap_folder: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Default INBOX' })),
    smtp_host: Type.Optional(Host),
    smtp_port: Type.Optional(Port),
    smtp_tls: Type.Optional(Type.Boolean({ description: 'Implicit TLS (port 465); false: STARTTLS' })),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: 'IMAP/SMTP login' })),
    tenant_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: '^[A-Za-z0-9.-]+$',
        description: 'Entra tenant id',
      }),
    ),
    client_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'App registration id' }),
    ),
    inbound_username: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Basic-auth user of the inbound webhook URL',
      }),
    ),
    reply_all: Type.Optional(
      Type.Boolean({
        description:
          "Reply to all: the customer's Cc (other than the mailbox's own addresses) stays on the bot's reply; default true",
      }),
    ),
    read_attachments: Type.Optional(
      Type.Boolean({
        description:
          'The bot reads the text of PDF and DOCX attachments (within the size and type limits); default false',
      }),
    ),
  },
  { additionalProperties: false },
);
export type MailboxSettings = Static<typeof MailboxSettings>;

export const SECRET_NAMES = ['password', 'client_secret', 'inbound_password'] as const;
export type SecretName = (typeof SECRET_NAMES)[number];

/** Write-only secrets: stored encrypted, never returned. */
export const MailboxSecrets = Type.Object(
  {
    password: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1000, description: 'IMAP/SMTP password' }),
    ),
    client_secret: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1000, description: 'Client secret of the app registration' }),
    ),
    inbound_password: Type.Optional(
      Type.String({
        minLength: 12,
        maxLength: 200,
        description: 'Basic-auth password of the inbound webhook URL',
      }),
    ),
  },
  { additionalProperties: false },
);
export type MailboxSecrets = Static<typeof MailboxSecrets>;

const Aliases = Type.Array(Address, { maxItems: 20, uniqueItems: true });

export const CreateMailboxBody = Type.Object(
  {
    kind: Kind,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    address: Address,
    aliases: Type.Optional(Aliases),
    is_active: Type.Optional(Type.Boolean({ default: true })),
    settings: MailboxSettings,
    secrets: MailboxSecrets,
    secret_expires_at: Type.Optional(
      Type.Union([DateTime, Type.Null()], { description: 'When the client secret expires' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateMailboxBody = Static<typeof CreateMailboxBody>;

export const UpdateMailboxBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    address: Type.Optional(Address),
    aliases: Type.Optional(Aliases),
    is_active: Type.Optional(Type.Boolean()),
    settings: Type.Optional(MailboxSettings),
    secrets: Type.Optional(MailboxSecrets),
    secret_expires_at: Type.Optional(Type.Union([DateTime, Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateMailboxBody = Static<typeof UpdateMailboxBody>;

export const MailboxSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    bot_id: Type.String({ format: 'uuid' }),
    kind: Type.String(),
    name: Type.String(),
    address: Type.String(),
    aliases: Type.Array(Type.String()),
    is_active: Type.Boolean(),
    settings: MailboxSettings,
    secrets_set: Type.Array(Type.String(), {
      description: 'Names of the secrets that are set (never their values)',
    }),
    secret_expires_at: NullableDateTime,
    inbound_url: Type.Union([Type.String(), Type.Null()], {
      description:
        'postmark: the URL to enter as the inbound webhook (with the basic-auth user and password)',
    }),
    health: Type.Object({
      last_sync_at: NullableDateTime,
      last_error: Type.Union([Type.String(), Type.Null()], {
        description: 'The last error in words with what to do (German)',
      }),
      last_error_code: Type.Union([Type.String(), Type.Null()], {
        description: 'Its code: dns, refused, timeout, tls, auth, quota, graph_forbidden, …',
      }),
      last_error_en: Type.Union([Type.String(), Type.Null()], { description: 'The same in English' }),
      last_error_detail: Type.Union([Type.String(), Type.Null()], {
        description: 'The raw detail behind it',
      }),
      last_error_at: NullableDateTime,
      token_expires_at: NullableDateTime,
      stale: Type.Boolean({ description: 'No successful sync for longer than the configured minutes' }),
      secret_expires_in_days: Type.Union([Type.Integer(), Type.Null()]),
      warning: Type.Union([Type.Literal('secret_expiring'), Type.Literal('secret_expired'), Type.Null()]),
    }),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'Mailbox', title: 'Mailbox' },
);

export const MailboxList = Type.Object({ data: Type.Array(MailboxSchema) });

export const MailboxParams = Type.Object({
  id: Type.String({ description: 'Bot id (UUID)' }),
  mailboxId: Type.String({ description: 'Mailbox id (UUID)' }),
});

export const MailboxTestResult = Type.Object({
  ok: Type.Boolean(),
  checked: Type.Array(Type.String(), { description: 'What was checked (imap, smtp, token, mailbox)' }),
  error: Type.Union([Type.String(), Type.Null()], {
    description: 'What failed and what to do, in words (German)',
  }),
  error_code: Type.Union([Type.String(), Type.Null()], {
    description: 'dns, refused, timeout, tls, auth, quota, folder_missing, protocol, graph_unauthorized, …',
  }),
  error_en: Type.Union([Type.String(), Type.Null()], { description: 'The same in English' }),
  error_detail: Type.Union([Type.String(), Type.Null()], {
    description: 'The raw detail (never what the server said in its greeting)',
  }),
});

export const ReceivedMailSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    mailbox_id: Type.String({ format: 'uuid' }),
    message_id: Type.String({ description: 'The Message-ID header as received' }),
    from_address: Type.Union([Type.String(), Type.Null()], { description: 'The sender (From)' }),
    reply_to: Type.Union([Type.String(), Type.Null()], {
      description: "Reply-To's first address when the mail had one: the reply goes there",
    }),
    subject: Type.Union([Type.String(), Type.Null()]),
    status: Type.String({ description: 'received, answered, skipped or failed' }),
    skip_reason: Type.Union([Type.String(), Type.Null()], {
      description:
        'Why the mail was not answered, as a code (mailer_daemon, auto_submitted, mailing_list, hourly_cap, duplicate_body, handed_over, …); codes of earlier versions are given as today’s code',
    }),
    error: Type.Union([Type.String(), Type.Null()], {
      description: 'For status failed: what went wrong, in words',
    }),
    second_chance: Type.Union([Type.Literal('answered'), Type.Literal('inbox'), Type.Null()], {
      description: 'A skipped mail the team answered anyway (forced) or sent to the inbox',
    }),
    has_raw: Type.Boolean({ description: 'The raw mail can be downloaded (owner and admin)' }),
    delivery: Type.Union(
      [
        Type.Object({
          status: Type.String({ description: 'queued, sent, deferred, bounced or failed' }),
          detail: Type.Union([Type.String(), Type.Null()], { description: "The server's words" }),
          to: Type.Union([Type.String(), Type.Null()]),
        }),
        Type.Null(),
      ],
      { description: 'What became of the reply to this mail' },
    ),
    conversation_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    received_at: DateTime,
  },
  { $id: 'ReceivedMail', title: 'ReceivedMail' },
);

export const ReceivedMailList = Page(ReceivedMailSchema);

const BouncedAddress = Type.Object({
  address: Type.String(),
  detail: Type.Union([Type.String(), Type.Null()]),
  at: Type.Union([DateTime, Type.Null()]),
});

export const ConversationMailList = Type.Object({
  data: Type.Array(ReceivedMailSchema),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
  bounced: Type.Array(BouncedAddress, {
    description: 'Addresses of this conversation whose replies bounced',
  }),
});

export const BouncedList = Type.Object({ data: Type.Array(BouncedAddress) });

export const BouncedQuery = Type.Object({ address: Type.String({ minLength: 3, maxLength: 320 }) });

export const MailParams = Type.Object({
  id: Type.String({ description: 'Bot id (UUID)' }),
  mailboxId: Type.String({ description: 'Mailbox id (UUID)' }),
  mailId: Type.String({ description: 'Received mail id (UUID)' }),
});

export const AnswerAnywayResult = Type.Object({
  status: Type.String({ description: 'answered, or skipped/failed when the bot still could not answer' }),
  conversation_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
});

export const SentToInboxResult = Type.Object({ conversation_id: Type.String({ format: 'uuid' }) });

export const ReceivedMailQuery = Type.Object({
  status: Type.Optional(
    Type.Union([
      Type.Literal('answered'),
      Type.Literal('skipped'),
      Type.Literal('failed'),
      Type.Literal('received'),
    ]),
  ),
  q: Type.Optional(
    Type.String({ maxLength: 200, description: 'Search in sender, Reply-To, subject and Message-ID' }),
  ),
  ...PageQuery,
});

export const ConversationMailQuery = Type.Object({ ...PageQuery });
