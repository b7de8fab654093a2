import { Type, type Static } from '@sinclair/typebox';
import { CHANNEL_KINDS } from '../channels/index.js';
import { PageQuery } from '../../shared/pagination.js';
import { nameSchemas } from '../../http/schemas.js';

/** Every channel kind of the registry (the database's check constraint allows the same). */
export const CONVERSATION_CHANNELS = CHANNEL_KINDS;
export const CONVERSATION_STATUSES = ['active', 'ended', 'handed_over'] as const;
export const MESSAGE_ROLES = ['user', 'assistant', 'system'] as const;

export const REVIEW_VERDICTS = ['good', 'bad'] as const;

export const DEFAULT_MESSAGE_PAGE = 50;
export const MAX_MESSAGE_PAGE = 200;

/** A closed list of strings: `enum` in the OpenAPI document, a literal union in TypeScript. */
const literals = <T extends readonly string[]>(values: T, description: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], description });
const nullableTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const ConversationSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    bot_id: Type.String({ format: 'uuid' }),
    channel: literals(CONVERSATION_CHANNELS, 'Channel the conversation came in on'),
    sender_id: Type.Union([Type.String(), Type.Null()], { description: 'Free identifier of the sender' }),
    metadata: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Free-form data sent with the chat',
    }),
    status: literals(CONVERSATION_STATUSES, 'active, ended or handed_over'),
    message_count: Type.Integer({ minimum: 0 }),
    last_message_at: nullableTime,
    ended_at: nullableTime,
    end_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the conversation ended' }),
    escalated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When it was handed over to a person',
    }),
    escalation_reason: Type.Union([Type.String(), Type.Null()]),
    rating: Type.Union([Type.Integer({ minimum: 1, maximum: 5 }), Type.Null()], {
      description: 'Satisfaction rating 1 to 5',
    }),
    rating_comment: Type.Union([Type.String(), Type.Null()]),
    rated_at: nullableTime,
    contact_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'Contact linked to the sender',
    }),
    is_test: Type.Boolean({ description: "A conversation of the dashboard's test chat" }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Conversation' },
);

export const MessageSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    role: literals(MESSAGE_ROLES, 'user: the sender; assistant: the bot'),
    content: Type.String(),
    channel: Type.String(),
    tokens: Type.Integer({ minimum: 0, description: 'Tokens this message consumed' }),
    model: Type.Union([Type.String(), Type.Null()], { description: 'AI model of a bot reply' }),
    knowledge_used: Type.Boolean(),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Message' },
);

const DATE_TEXT =
  'ISO 8601 date (2026-05-01, the whole UTC day) or date-time with zone (2026-05-01T08:00:00Z)';

export const ConversationListQuery = Type.Object(
  {
    ...PageQuery,
    bot_id: Type.Optional(Type.String({ format: 'uuid', description: 'Only conversations of this bot' })),
    channel: Type.Optional(literals(CONVERSATION_CHANNELS, 'Only conversations of this channel')),
    sender_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Exact sender_id' })),
    status: Type.Optional(literals(CONVERSATION_STATUSES, 'Only conversations with this status')),
    from: Type.Optional(Type.String({ maxLength: 40, description: `Created at or after: ${DATE_TEXT}` })),
    to: Type.Optional(Type.String({ maxLength: 40, description: `Created at or before: ${DATE_TEXT}` })),
  },
  { additionalProperties: false },
);

/** The dashboard's list: the API's filters and who the conversations are with. */
export const DashboardConversationListQuery = Type.Object(
  {
    ...ConversationListQuery.properties,
    kind: Type.Optional(
      literals(
        ['customers', 'test', 'all'] as const,
        "customers (default): without the dashboard's test chat; test: only those; all",
      ),
    ),
    rating: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 5, description: "Only with this customer's satisfaction rating" }),
    ),
    review: Type.Optional(literals(REVIEW_VERDICTS, 'Only with a bot reply staff rated good (or bad)')),
    handed_over: Type.Optional(
      Type.Boolean({
        description: 'true: only conversations handed over to people; false: never handed over',
      }),
    ),
    no_knowledge: Type.Optional(
      Type.Boolean({ description: 'true: only conversations with a bot reply that used no knowledge' }),
    ),
  },
  { additionalProperties: false },
);

const nullableText = Type.Union([Type.String(), Type.Null()]);

/** A message as the dashboard's review shows it: what a bot reply carried and staff's verdict. */
export const ReviewMessageSchema = Type.Object(
  {
    ...MessageSchema.properties,
    author_user_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: "A person's reply: who wrote it (null: the bot or the customer)",
    }),
    author_name: nullableText,
    sources: Type.Array(
      Type.Object({
        entry_id: Type.String(),
        title: Type.String(),
        score: Type.Number({ description: 'Relevance score of the knowledge search' }),
      }),
      { description: 'Knowledge entries the bot reply drew on (empty for other messages)' },
    ),
    actions: Type.Array(Type.Unknown(), {
      description: "The reply's actions (bookings), as the chat answered them",
    }),
    blocks: Type.Array(Type.Unknown(), { description: "The reply's interactive blocks" }),
    handover_reason: Type.Union([Type.String(), Type.Null()], {
      description: 'Set on the bot reply that handed the conversation over to people: why',
    }),
    review: Type.Union([
      Type.Object({
        verdict: literals(REVIEW_VERDICTS, 'good or bad'),
        note: nullableText,
        reviewed_by: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
        reviewed_by_name: nullableText,
        reviewed_at: Type.String({ format: 'date-time' }),
      }),
      Type.Null(),
    ]),
  },
  { title: 'ReviewMessage' },
);

export const ConversationReview = Type.Object(
  {
    ...ConversationSchema.properties,
    messages: Type.Array(ReviewMessageSchema, { description: 'Messages, oldest first (one page)' }),
    next_cursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Cursor for the next (newer) page of messages; null when none remain',
    }),
  },
  { title: 'ConversationReview' },
);

export const ReviewBody = Type.Object(
  {
    verdict: literals(REVIEW_VERDICTS, 'good or bad'),
    note: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const ReviewParams = Type.Object({
  id: Type.String({ description: 'Conversation id (UUID)' }),
  messageId: Type.String({ description: 'Message id (UUID): a bot reply' }),
});

export const ConversationDetailQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_MESSAGE_PAGE,
        default: DEFAULT_MESSAGE_PAGE,
        description: `Messages per page, 1 to ${MAX_MESSAGE_PAGE} (default ${DEFAULT_MESSAGE_PAGE})`,
      }),
    ),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, description: 'next_cursor of the previous page' }),
    ),
  },
  { additionalProperties: false },
);

export const ConversationDetail = Type.Object(
  {
    ...ConversationSchema.properties,
    messages: Type.Array(MessageSchema, { description: 'Messages, oldest first (one page)' }),
    next_cursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Cursor for the next (newer) page of messages; null when none remain',
    }),
  },
  { title: 'ConversationDetail' },
);

export type ConversationFilters = Static<typeof ConversationListQuery> &
  Partial<
    Pick<
      Static<typeof DashboardConversationListQuery>,
      'kind' | 'rating' | 'review' | 'handed_over' | 'no_knowledge'
    >
  >;
export type ReviewMessageResponse = Static<typeof ReviewMessageSchema>;
export type ConversationResponse = Static<typeof ConversationSchema>;
export type MessageResponse = Static<typeof MessageSchema>;

// Named component schemas of the OpenAPI document.
nameSchemas({
  Conversation: ConversationSchema,
  Message: MessageSchema,
  ConversationDetail: ConversationDetail,
  ReviewMessage: ReviewMessageSchema,
  ConversationReview: ConversationReview,
});
