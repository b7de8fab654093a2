import { Type } from '@sinclair/typebox';
import { nameSchemas } from '../../http/schemas.js';
import { HANDOVER_REASONS } from '../conversations/index.js';
import { INBOX_PAGE, MAX_INBOX_PAGE, MAX_TEXT } from './limits.js';

const nullableTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
const nullableString = Type.Union([Type.String(), Type.Null()]);
const literals = <T extends readonly string[]>(values: T, description: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], description });

export const INBOX_STATES = ['bot', 'waiting', 'with_person', 'closed'] as const;

export const InboxConversation = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    bot_id: Type.String({ format: 'uuid' }),
    bot_name: Type.String(),
    channel: Type.String({ description: 'Channel the conversation came in on' }),
    sender_id: nullableString,
    customer_name: Type.Union([Type.String(), Type.Null()], {
      description: 'The customer’s name, else e-mail address, from their contact; null when unknown',
    }),
    state: literals(INBOX_STATES, 'bot, waiting (for a person), with_person (assigned) or closed'),
    status: Type.String({ description: "The specification's status: active, ended or handed_over" }),
    assigned_user_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    assigned_user_name: nullableString,
    handover_reason: Type.Union([
      literals(HANDOVER_REASONS, 'Why the conversation was handed over'),
      Type.Null(),
    ]),
    handover_at: nullableTime,
    handover_question: Type.Union([Type.String(), Type.Null()], {
      description: 'The customer message the bot could not answer',
    }),
    is_test: Type.Boolean({ description: "From the dashboard's test chat" }),
    message_count: Type.Integer({ minimum: 0 }),
    last_message_at: nullableTime,
    last_message: nullableString,
    unread: Type.Boolean({ description: 'A customer message came after the last read' }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'InboxConversation' },
);

export const InboxMessage = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    role: Type.String({ description: 'user: the customer; assistant: the bot or a person' }),
    content: Type.String(),
    author_user_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    author_name: nullableString,
    from_person: Type.Boolean({ description: 'Written by a person of the team (not the bot)' }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'InboxMessage' },
);

export const InboxNote = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    content: Type.String(),
    author_user_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    author_name: nullableString,
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'InboxNote' },
);

export const InboxRefusal = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    channel: Type.String({ description: 'Channel the refused message came in on' }),
    guard: Type.String({
      description: 'The channel guard that refused it: email_loop, widget_budget, messaging_opt_out',
    }),
    code: Type.String({
      description: "The engine's refusal code: loop_guarded, budget_exhausted or opted_out",
    }),
    reason: Type.String({
      description:
        "The guard's reason word: hourly_cap, daily_cap, duplicate_body, widget_budget_exhausted, opted_out",
    }),
    text: Type.String({ description: 'Why, in words: "nicht beantwortet, weil …"' }),
    message_excerpt: Type.String({
      description: "The start of the customer's message (500 characters at most)",
    }),
    created_at: Type.String({ format: 'date-time' }),
  },
  {
    title: 'InboxRefusal',
    description: "A customer's message a channel guard refused before the bot saw it (not answered)",
  },
);

export const InboxVisitor = Type.Object(
  {
    verified: Type.Boolean({ description: 'Identified by the site (identity token)' }),
    name: nullableString,
    email: nullableString,
    contact_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    page_url: Type.Union([Type.String(), Type.Null()], {
      description: 'The page the visitor is on (widget)',
    }),
    page_title: nullableString,
    language: nullableString,
    device: Type.Union([Type.String(), Type.Null()], {
      description: 'Browser and system, e.g. Chrome on Android',
    }),
    earlier_conversations: Type.Array(
      Type.Object({
        id: Type.String({ format: 'uuid' }),
        channel: Type.String(),
        status: Type.String(),
        message_count: Type.Integer(),
        created_at: Type.String({ format: 'date-time' }),
        last_message_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      }),
    ),
  },
  { title: 'InboxVisitor', description: 'Who the customer is, as far as the channel and the contacts tell' },
);

export const InboxDetail = Type.Intersect(
  [
    InboxConversation,
    Type.Object({
      messages: Type.Array(InboxMessage),
      notes: Type.Array(InboxNote),
      refusals: Type.Array(InboxRefusal, {
        description:
          "Messages a channel guard refused (not answered), oldest first; the timeline's system lines",
      }),
      visitor: InboxVisitor,
    }),
  ],
  { title: 'InboxDetail' },
);

export const InboxList = Type.Object(
  {
    data: Type.Array(InboxConversation),
    next_cursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Cursor for the next page; null on the last page',
    }),
  },
  { title: 'InboxList' },
);

export const InboxListQuery = Type.Object(
  {
    view: Type.Optional(
      literals(['all', 'mine', 'unassigned'] as const, 'all (default), mine (assigned to me), unassigned'),
    ),
    bot_id: Type.Optional(Type.String({ format: 'uuid' })),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_INBOX_PAGE,
        default: INBOX_PAGE,
        description: `Page size, 1 to ${MAX_INBOX_PAGE} (default ${INBOX_PAGE})`,
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description: 'Opaque cursor: the next_cursor of the previous page',
      }),
    ),
  },
  { additionalProperties: false },
);

export const TextBody = Type.Object(
  { text: Type.String({ minLength: 1, maxLength: MAX_TEXT }) },
  { additionalProperties: false },
);

export const AssignBody = Type.Object(
  {
    user_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'The colleague; null puts the conversation back to waiting',
    }),
  },
  { additionalProperties: false },
);

export const InboxReply = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    conversation_id: Type.String({ format: 'uuid' }),
    role: Type.Literal('assistant'),
    content: Type.String(),
    author_user_id: Type.String({ format: 'uuid' }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'InboxReply' },
);

export const UnreadCount = Type.Object({ count: Type.Integer({ minimum: 0 }) }, { title: 'InboxUnread' });
export const Ok = Type.Object({ ok: Type.Boolean() });

nameSchemas({
  InboxConversation,
  InboxMessage,
  InboxNote,
  InboxRefusal,
  InboxDetail,
  InboxReply,
  InboxVisitor,
});
