import { Type, type Static } from '@sinclair/typebox';
import { BLOCK_TYPES, STEP_TYPES, TRIGGER_MODES, type BlockRow, type StepRow } from './repository.js';
import { nameSchemas } from '../../http/schemas.js';

const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));

const ITEM_ID = '^[A-Za-z0-9_-]{1,64}$';
const EXIT_NAME = '^[A-Za-z0-9_-]{1,50}$';
const FIELD_NAME = '^[A-Za-z0-9_.-]{1,100}$';
const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });

/** A block of the flow as a chat answer carries it (buttons or a list to choose from). */
export const ChatBlockSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  type: Type.Union([Type.Literal('buttons'), Type.Literal('list')]),
  name: Type.String(),
  items: Type.Array(
    Type.Object({
      id: Type.String(),
      title: Type.String(),
      description: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});

export const BlockItemSchema = Type.Object(
  {
    id: Type.String({ pattern: ITEM_ID, description: 'Stable item id; option_actions are keyed by it' }),
    title: Type.String({ minLength: 1, maxLength: 100, description: 'Text the user sees' }),
    description: Type.Optional(Type.String({ maxLength: 300 })),
  },
  { additionalProperties: false },
);

export const OptionActionSchema = Type.Union([
  Type.Object(
    {
      action: Type.Literal('goto_step'),
      step_id: Type.String({ format: 'uuid', description: 'A flow step of the same bot' }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    { action: Type.Literal('reply'), text: Type.String({ minLength: 1, maxLength: 2000 }) },
    { additionalProperties: false },
  ),
  Type.Object({ action: Type.Literal('handover') }, { additionalProperties: false }),
]);

export const ConditionSchema = Type.Object(
  {
    field: Type.String({ minLength: 1, maxLength: 100, description: 'Collected answer or context field' }),
    operator: literals(['equals', 'not_equals', 'contains', 'exists'] as const),
    value: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const StepConfigSchema = Type.Object(
  {
    conditions: Type.Optional(Type.Array(ConditionSchema, { maxItems: 50 })),
    keywords: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
  },
  { additionalProperties: false },
);

const ExitTarget = Type.Union([Type.String({ format: 'uuid' }), Type.Literal('end')], {
  description: 'A flow step id of the same bot, or `end`',
});

const BlockName = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[^\\[\\]\\r\\n]+$',
  description: 'Unique per bot (case-insensitive); used in the prompt tag, so no brackets or line breaks',
});

const blockFields = {
  name: BlockName,
  block_type: literals(BLOCK_TYPES),
  items: Type.Array(BlockItemSchema, { maxItems: 50 }),
  is_active: Type.Boolean(),
  trigger_mode: Type.Union([literals(TRIGGER_MODES), Type.Null()], {
    description: 'How the block is triggered; null = not configured',
  }),
  option_actions: Type.Record(Type.String({ pattern: ITEM_ID }), OptionActionSchema, {
    description: 'Action per item id',
    additionalProperties: false,
  }),
  step_config: StepConfigSchema,
  exits: Type.Record(Type.String({ pattern: EXIT_NAME }), ExitTarget, {
    description: 'Exit name → target; the flow engine follows only `default`',
    additionalProperties: false,
  }),
};

export const CreateBlockBody = Type.Object(
  {
    name: blockFields.name,
    block_type: blockFields.block_type,
    items: Type.Optional(blockFields.items),
    is_active: Type.Optional(blockFields.is_active),
    trigger_mode: Type.Optional(blockFields.trigger_mode),
    option_actions: Type.Optional(blockFields.option_actions),
    step_config: Type.Optional(blockFields.step_config),
    exits: Type.Optional(blockFields.exits),
  },
  { additionalProperties: false },
);
export type CreateBlockInput = Static<typeof CreateBlockBody>;

export const UpdateBlockBody = Type.Partial(CreateBlockBody, {
  additionalProperties: false,
  minProperties: 1,
});
export type UpdateBlockInput = Static<typeof UpdateBlockBody>;

export const BlockSchema = Type.Object(
  {
    id: Uuid,
    bot_id: Uuid,
    ...blockFields,
    created_by: Type.Union([Uuid, Type.Null()]),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Interactive block' },
);

const stepFields = {
  step_order: Type.Integer({ minimum: 1, maximum: 1000, description: 'Position in the flow, 1-based' }),
  step_type: literals(STEP_TYPES),
  label: Type.String({ minLength: 1, maxLength: 200 }),
  icon: Type.Union([Type.String({ maxLength: 50 }), Type.Null()]),
  block_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: 'Interactive block of the same bot this step shows',
  }),
  content: Type.Union([Type.String({ maxLength: 2000 }), Type.Null()], {
    description:
      'What the step says: the text of a message or hand-over step, the question of an input step, the intro of a block step',
  }),
  field_name: Type.Union([Type.String({ minLength: 1, maxLength: 100, pattern: FIELD_NAME }), Type.Null()], {
    description: 'Input steps: the answer field the reply fills (the label when null)',
  }),
};

export const CreateStepBody = Type.Object(
  {
    step_order: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        description: 'Insert at this position (later steps move down); appended when omitted',
      }),
    ),
    step_type: stepFields.step_type,
    label: stepFields.label,
    icon: Type.Optional(stepFields.icon),
    block_id: Type.Optional(stepFields.block_id),
    content: Type.Optional(stepFields.content),
    field_name: Type.Optional(stepFields.field_name),
  },
  { additionalProperties: false },
);
export type CreateStepInput = Static<typeof CreateStepBody>;

export const UpdateStepBody = Type.Partial(
  Type.Object({
    step_order: Type.Integer({ minimum: 1, maximum: 1000, description: 'Move the step to this position' }),
    step_type: stepFields.step_type,
    label: stepFields.label,
    icon: stepFields.icon,
    block_id: stepFields.block_id,
    content: stepFields.content,
    field_name: stepFields.field_name,
  }),
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateStepInput = Static<typeof UpdateStepBody>;

export const ReorderStepsBody = Type.Object(
  {
    step_ids: Type.Array(Type.String({ format: 'uuid' }), {
      maxItems: 1000,
      description: 'Every step of the bot exactly once, in the new order',
    }),
  },
  { additionalProperties: false },
);

export const StepSchema = Type.Object(
  { id: Uuid, bot_id: Uuid, ...stepFields, created_at: Timestamp, updated_at: Timestamp },
  { title: 'Flow step' },
);

export const BlockParams = Type.Object({
  id: Type.String({ description: 'Bot id (UUID)' }),
  blockId: Type.String({ description: 'Block id (UUID)' }),
});
export const StepParams = Type.Object({
  id: Type.String({ description: 'Bot id (UUID)' }),
  stepId: Type.String({ description: 'Flow step id (UUID)' }),
});

export const DanglingReference = Type.Object({
  block_id: Uuid,
  block_name: Type.String(),
  key: Type.String({ description: 'Exit name or item id that still names the deleted step' }),
});

export function serializeBlock(row: BlockRow) {
  return {
    id: row.id,
    bot_id: row.bot_id,
    name: row.name,
    block_type: row.block_type,
    items: row.items,
    is_active: row.is_active,
    trigger_mode: row.trigger_mode,
    option_actions: row.option_actions,
    step_config: row.step_config,
    exits: row.exits,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function serializeStep(row: StepRow) {
  return {
    id: row.id,
    bot_id: row.bot_id,
    step_order: row.step_order,
    step_type: row.step_type,
    label: row.label,
    icon: row.icon,
    block_id: row.block_id,
    content: row.content,
    field_name: row.field_name,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

// Named component schemas of the OpenAPI document.
nameSchemas({ Block: BlockSchema, FlowStep: StepSchema });
