import { Type } from '@sinclair/typebox';
import { nameSchemas } from '../../http/schemas.js';
import { ChatBlockSchema } from '../flow/index.js';

export { ChatBlockSchema };

/*
 * The chat body is checked by parseChatRequest (request.ts), which gives the specification's
 * exact German texts in its order; this schema documents the body for the OpenAPI document.
 */
export const ChatParams = Type.Object({
  botId: Type.String({ description: 'UUID of a bot of the key’s tenant' }),
});

export const ChatChoiceSchema = Type.Object(
  {
    block_id: Type.String({ format: 'uuid', description: 'The block of the chat response’s `blocks`' }),
    item_id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'The chosen item’s id' }),
  },
  { additionalProperties: false },
);

export const ChatBody = Type.Object(
  {
    message: Type.String({
      minLength: 1,
      maxLength: 10000,
      description: 'The user’s message (1–10000 characters)',
    }),
    sender_id: Type.Optional(
      Type.String({ maxLength: 255, description: 'Free identifier of the sender (at most 255 characters)' }),
    ),
    channel: Type.Optional(
      Type.String({
        description: '`email`, `api` or `webhook`; default `api`; any other value is replaced by `api`',
        examples: ['api'],
      }),
    ),
    conversation_id: Type.Optional(
      Type.String({ format: 'uuid', description: 'Continues a conversation of this bot and tenant' }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Free-form data stored with a new conversation (JSON object, at most 16 KiB)',
      }),
    ),
    choice: Type.Optional(
      Type.Union([ChatChoiceSchema, Type.Null()], {
        description:
          'Addition to the specification: the item of an interactive block the user picked (send the item title as `message`). A title typed as text or its number works too.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ChatSourceSchema = Type.Object({
  entry_id: Type.String({ format: 'uuid' }),
  title: Type.String(),
  score: Type.Number({ description: 'Search score 0..1' }),
  source_url: Type.Union([Type.String(), Type.Null()]),
  source_name: Type.Optional(Type.String({ description: 'File name of an imported entry' })),
  page: Type.Optional(Type.Integer({ minimum: 1, description: 'PDF page of an imported entry' })),
});

export const ChatResponseSchema = Type.Object({
  reply: Type.String({ description: 'The bot’s answer' }),
  conversation_id: Type.String({ format: 'uuid', description: 'Send with follow-up messages' }),
  tokens_used: Type.Number({ description: 'Tokens consumed by this request (prompt + reply)' }),
  model: Type.String({ description: 'Name of the AI model that answered' }),
  knowledge_used: Type.Boolean({ description: 'Whether knowledge-base entries went into the answer' }),
  quota_remaining: Type.Union([Type.Number(), Type.Null()], {
    description: 'Messages left in the monthly quota; null when unlimited',
  }),
  channel: Type.String({ description: 'The channel used' }),
  sources: Type.Array(ChatSourceSchema, { description: 'Knowledge entries that went into the answer' }),
  actions: Type.Array(Type.Unknown(), {
    description: 'Actions derived from the reply by extensions (e.g. booking tags); empty by default',
  }),
  blocks: Type.Optional(
    Type.Array(ChatBlockSchema, {
      description:
        'Addition to the specification: interactive blocks the reply shows as buttons or a list (at most one); the block tag is removed from `reply`. Answer with `choice`.',
    }),
  ),
});

export const ChatErrorSchema = Type.Object(
  {
    error: Type.String({ description: 'German error text of the specification, e.g. "Bot nicht gefunden"' }),
    message: Type.Optional(
      Type.String({ description: 'Explanation (rate limit, model outage, idempotency)' }),
    ),
  },
  { $id: 'ChatError', title: 'ChatError' },
);

export function chatErrorResponses(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, ChatErrorSchema]));
}

// Named component schemas of the OpenAPI document.
nameSchemas({
  ChatRequest: ChatBody,
  ChatResponse: ChatResponseSchema,
  ChatSource: ChatSourceSchema,
  ChatBlock: ChatBlockSchema,
  ChatChoice: ChatChoiceSchema,
});
