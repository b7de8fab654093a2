import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../shared/pagination.js';
import { BOT_CHANNELS, BOT_KINDS, BOT_STATUSES } from './repository.js';
import { nameSchemas } from '../../http/schemas.js';

const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
/** A closed list of strings: `enum` in the OpenAPI document, a literal union in TypeScript. */
const literals = <T extends readonly string[]>(values: T, description: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], description });

const STATUS_TEXT =
  'Lifecycle status: draft, active or disabled. A bot answers chat only when is_active is true and status is not disabled.';

/** The fields of a bot as every endpoint shows them (never tenant_id or other internals). */
export const BotSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    description: nullable(Type.String()),
    kind: literals(BOT_KINDS, 'Bot kind: standard, smart or specialized'),
    is_active: Type.Boolean({ description: 'false disables the bot for chat' }),
    status: literals(BOT_STATUSES, STATUS_TEXT),
    system_prompt: Type.String({ description: 'The current editable prompt (versioned)' }),
    system_prompt_generated: nullable(
      Type.String({ description: 'Prompt with generated block definitions (pre-flight inject)' }),
    ),
    knowledge_strictness: Type.Integer({ minimum: 1, maximum: 5 }),
    knowledge_min_score: Type.Union([Type.Number(), Type.Null()], {
      description: 'Per-bot minimum knowledge score; null uses the service default',
    }),
    emoji_usage: Type.Integer({ minimum: 0, maximum: 10 }),
    formal_address: Type.Boolean({ description: 'true: formal form of address; false: informal' }),
    industry_code: nullable(Type.String()),
    model: nullable(Type.String({ description: 'AI model name; null uses the service default' })),
    channels: Type.Array(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Bot' },
);

const fieldSchemas = {
  name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'Display name' }),
  description: Type.Union([Type.String({ maxLength: 5000 }), Type.Null()]),
  kind: literals(BOT_KINDS, 'Bot kind (default standard)'),
  is_active: Type.Boolean({ description: 'Default true' }),
  status: literals(BOT_STATUSES, `${STATUS_TEXT} Default active.`),
  system_prompt: Type.String({ maxLength: 100_000, description: 'Creating or changing it stores a version' }),
  knowledge_strictness: Type.Integer({
    minimum: 1,
    maximum: 5,
    description: '1 loose … 5 strict (default 3)',
  }),
  knowledge_min_score: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()]),
  emoji_usage: Type.Integer({ minimum: 0, maximum: 10, description: '0 none … 10 many (default 0)' }),
  formal_address: Type.Boolean({ description: 'Default true (formal)' }),
  industry_code: Type.Union([Type.String({ minLength: 1, maxLength: 50 }), Type.Null()]),
  model: Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()]),
  channels: Type.Array(literals(BOT_CHANNELS, 'Channel'), {
    uniqueItems: true,
    maxItems: BOT_CHANNELS.length,
    description: `Channels the bot serves: ${BOT_CHANNELS.join(', ')} (default ["api"])`,
  }),
};

/** POST /v1/bots: exactly the fields the public API documents; anything else is refused. */
export const V1CreateBotBody = Type.Object(
  {
    name: fieldSchemas.name,
    system_prompt: Type.Optional(fieldSchemas.system_prompt),
    is_active: Type.Optional(fieldSchemas.is_active),
    status: Type.Optional(fieldSchemas.status),
    knowledge_strictness: Type.Optional(fieldSchemas.knowledge_strictness),
    emoji_usage: Type.Optional(fieldSchemas.emoji_usage),
    formal_address: Type.Optional(fieldSchemas.formal_address),
    industry_code: Type.Optional(fieldSchemas.industry_code),
    model: Type.Optional(fieldSchemas.model),
  },
  { additionalProperties: false },
);

const dashboardFields = {
  description: Type.Optional(fieldSchemas.description),
  kind: Type.Optional(fieldSchemas.kind),
  is_active: Type.Optional(fieldSchemas.is_active),
  status: Type.Optional(fieldSchemas.status),
  system_prompt: Type.Optional(fieldSchemas.system_prompt),
  knowledge_strictness: Type.Optional(fieldSchemas.knowledge_strictness),
  knowledge_min_score: Type.Optional(fieldSchemas.knowledge_min_score),
  emoji_usage: Type.Optional(fieldSchemas.emoji_usage),
  formal_address: Type.Optional(fieldSchemas.formal_address),
  industry_code: Type.Optional(fieldSchemas.industry_code),
  model: Type.Optional(fieldSchemas.model),
  channels: Type.Optional(fieldSchemas.channels),
};

/** POST /api/bots: every writable bot field. */
export const CreateBotBody = Type.Object(
  { name: fieldSchemas.name, ...dashboardFields },
  { additionalProperties: false },
);

/** PATCH /api/bots/:id: any subset of the writable fields; at least one. */
export const UpdateBotBody = Type.Object(
  { name: Type.Optional(fieldSchemas.name), ...dashboardFields },
  { additionalProperties: false, minProperties: 1 },
);

export const BotListQuery = Type.Object(
  {
    ...PageQuery,
    is_active: Type.Optional(Type.Boolean({ description: 'Only bots with this is_active value' })),
    status: Type.Optional(literals(BOT_STATUSES, 'Only bots with this status')),
  },
  { additionalProperties: false },
);

export type V1CreateBotInput = Static<typeof V1CreateBotBody>;
export type CreateBotInput = Static<typeof CreateBotBody>;
export type UpdateBotInput = Static<typeof UpdateBotBody>;
export type BotListFilters = Static<typeof BotListQuery>;
export type BotResponse = Static<typeof BotSchema>;

// Named component schemas of the OpenAPI document.
nameSchemas({ Bot: BotSchema });
