import { Type } from '@sinclair/typebox';
import { MAX_INJECTED_PROMPT_CHARS } from './service.js';
import { nameSchemas } from '../../http/schemas.js';

const Status = Type.Union([Type.Literal('green'), Type.Literal('orange'), Type.Literal('red')]);

const BlockCheckSchema = Type.Object({
  blockId: Type.String({ format: 'uuid' }),
  blockName: Type.String(),
  blockType: Type.String(),
  itemCount: Type.Integer(),
  status: Status,
  routing: Type.Object({
    ok: Type.Boolean(),
    method: Type.String({ description: '`trigger_mode:<mode>`; `option_actions` or `none` without a mode' }),
  }),
  conditions: Type.Object({ set: Type.Boolean(), count: Type.Integer() }),
  targets: Type.Object({
    valid: Type.Boolean(),
    issues: Type.Array(
      Type.Object({
        kind: Type.Union([
          Type.Literal('missing_exit_target'),
          Type.Literal('untriggered_exit_key'),
          Type.Literal('missing_goto_target'),
        ]),
        key: Type.String({ description: 'Exit name or item id' }),
        target: Type.Union([Type.String(), Type.Null()]),
        message: Type.String({ description: 'German explanation' }),
      }),
    ),
  }),
  detail: Type.String({ description: 'Human-readable summary (German)' }),
  recommendation: Type.Union([Type.String(), Type.Null()]),
});

const FlowAnalysisSchema = Type.Object({
  steps: Type.Array(
    Type.Object({
      stepId: Type.String({ format: 'uuid' }),
      stepOrder: Type.Integer(),
      stepType: Type.String(),
      label: Type.String(),
      icon: Type.Union([Type.String(), Type.Null()]),
      blockId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    }),
  ),
  edges: Type.Array(
    Type.Object({
      from: Type.Integer({ description: 'stepOrder of the source' }),
      to: Type.Union([Type.Integer(), Type.Literal('end')], {
        description: 'stepOrder of the target, or end',
      }),
      type: Type.Union([Type.Literal('linear'), Type.Literal('exit'), Type.Literal('condition')]),
      via: Type.Optional(Type.String({ description: 'Exit name or item id behind the jump' })),
    }),
  ),
  unreachableSteps: Type.Array(Type.Integer(), { description: 'stepOrders; the first step never counts' }),
  deadEnds: Type.Array(Type.Integer(), { description: 'stepOrders; the last step never counts' }),
});

export const PreflightResponse = Type.Object({
  canActivate: Type.Boolean({ description: 'True exactly when no block is red' }),
  blocks: Type.Array(BlockCheckSchema, { description: 'Every active interactive block' }),
  summary: Type.Object({
    total: Type.Integer(),
    green: Type.Integer(),
    orange: Type.Integer(),
    red: Type.Integer(),
  }),
  flowAnalysis: FlowAnalysisSchema,
  kbOnboarding: Type.Union([
    Type.Null(),
    Type.Object({ type: Type.String(), message: Type.String(), details: Type.Unknown() }),
  ]),
  promptInjection: Type.Object({
    section: Type.String({
      description: 'System-prompt section listing the active blocks and the tag syntax',
    }),
    blockCount: Type.Integer({ description: 'Blocks listed in the section' }),
    combinedPrompt: Type.String({ description: 'system_prompt followed by the section; ready for inject' }),
  }),
  messagingWarnings: Type.Array(
    Type.Object({
      blockId: Type.String({ format: 'uuid' }),
      blockName: Type.String(),
      channel: Type.Literal('whatsapp'),
      limit: Type.Union([
        Type.Literal('buttons_count'),
        Type.Literal('button_title'),
        Type.Literal('list_rows'),
        Type.Literal('row_title'),
        Type.Literal('row_description'),
      ]),
      items: Type.Array(Type.String(), { description: 'Item titles over the limit; empty for a count' }),
      message: Type.Object({ de: Type.String(), en: Type.String() }),
    }),
    {
      description:
        'Blocks whose choices do not fit WhatsApp reply buttons or list messages (sent as a numbered list instead); only when the bot has an active WhatsApp connection',
    },
  ),
});

export const InjectBody = Type.Object(
  {
    injectedPrompt: Type.String({
      maxLength: MAX_INJECTED_PROMPT_CHARS,
      description: 'Prompt with generated block definitions; an empty text clears it',
    }),
  },
  { additionalProperties: false },
);

export const InjectResponse = Type.Object({
  success: Type.Literal(true),
  botId: Type.String({ format: 'uuid' }),
  stored: Type.Boolean({ description: 'False when an empty text cleared the generated prompt' }),
  length: Type.Integer({ description: 'Characters stored' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

// Named component schemas of the OpenAPI document.
nameSchemas({ PreflightResult: PreflightResponse });
