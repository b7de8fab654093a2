import type { Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';
import { isUuid } from '../../shared/ids.js';
import type { FlowState } from './engine.js';
import type { BlockItem, FlowBlock, FlowStep, OptionAction, StepConfig } from './model.js';

export const BLOCK_TYPES = ['buttons', 'list'] as const;
export const TRIGGER_MODES = ['auto', 'keyword', 'flow'] as const;
export const STEP_TYPES = ['message', 'block', 'input', 'handover'] as const;

export interface BlockRow {
  id: string;
  tenant_id: string;
  bot_id: string;
  name: string;
  block_type: (typeof BLOCK_TYPES)[number];
  items: BlockItem[];
  is_active: boolean;
  trigger_mode: (typeof TRIGGER_MODES)[number] | null;
  option_actions: Record<string, OptionAction>;
  step_config: StepConfig;
  exits: Record<string, string>;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface StepRow {
  id: string;
  tenant_id: string;
  bot_id: string;
  step_order: number;
  step_type: (typeof STEP_TYPES)[number];
  label: string;
  icon: string | null;
  block_id: string | null;
  /** Text of a message or hand-over step, question of an input step, intro of a block step. */
  content: string | null;
  /** Answer field an input step fills. */
  field_name: string | null;
  created_at: Date;
  updated_at: Date;
}

export type BlockFields = Pick<
  BlockRow,
  'name' | 'block_type' | 'items' | 'is_active' | 'trigger_mode' | 'option_actions' | 'step_config' | 'exits'
>;
export type StepFields = Pick<
  StepRow,
  'step_order' | 'step_type' | 'label' | 'icon' | 'block_id' | 'content' | 'field_name'
>;

const JSON_COLUMNS = new Set(['items', 'option_actions', 'step_config', 'exits']);
const BLOCK_COLUMNS: (keyof BlockFields)[] = [
  'name',
  'block_type',
  'items',
  'is_active',
  'trigger_mode',
  'option_actions',
  'step_config',
  'exits',
];
const STEP_COLUMNS: (keyof StepFields)[] = [
  'step_order',
  'step_type',
  'label',
  'icon',
  'block_id',
  'content',
  'field_name',
];

/** jsonb parameters go in as text so both drivers store objects and arrays alike. */
function param(column: string, value: unknown): unknown {
  return JSON_COLUMNS.has(column) ? JSON.stringify(value) : value;
}

export function listBlocks(db: Queryable, tenantId: string, botId: string): Promise<BlockRow[]> {
  return db.query<BlockRow>(
    'SELECT * FROM interactive_blocks WHERE tenant_id = $1 AND bot_id = $2 ORDER BY created_at, id',
    [tenantId, botId],
  );
}

export function findBlock(
  db: Queryable,
  tenantId: string,
  botId: string,
  blockId: string,
): Promise<BlockRow | undefined> {
  if (!isUuid(blockId)) return Promise.resolve(undefined);
  return queryOne<BlockRow>(
    db,
    'SELECT * FROM interactive_blocks WHERE tenant_id = $1 AND bot_id = $2 AND id = $3',
    [tenantId, botId, blockId],
  );
}

export async function insertBlock(
  db: Queryable,
  tenantId: string,
  botId: string,
  fields: BlockFields,
  createdBy: string | null,
): Promise<BlockRow> {
  const values = BLOCK_COLUMNS.map((c) => param(c, fields[c]));
  const placeholders = BLOCK_COLUMNS.map((_, i) => `$${i + 4}`);
  return (await queryOne<BlockRow>(
    db,
    `INSERT INTO interactive_blocks (tenant_id, bot_id, created_by, ${BLOCK_COLUMNS.join(', ')})
     VALUES ($1, $2, $3, ${placeholders.join(', ')}) RETURNING *`,
    [tenantId, botId, createdBy, ...values],
  ))!;
}

export function updateBlock(
  db: Queryable,
  tenantId: string,
  botId: string,
  blockId: string,
  fields: BlockFields,
): Promise<BlockRow | undefined> {
  const sets = BLOCK_COLUMNS.map((c, i) => `${c} = $${i + 4}`);
  return queryOne<BlockRow>(
    db,
    `UPDATE interactive_blocks SET ${sets.join(', ')}, updated_at = now()
     WHERE tenant_id = $1 AND bot_id = $2 AND id = $3 RETURNING *`,
    [tenantId, botId, blockId, ...BLOCK_COLUMNS.map((c) => param(c, fields[c]))],
  );
}

export async function deleteBlock(
  db: Queryable,
  tenantId: string,
  botId: string,
  blockId: string,
): Promise<boolean> {
  if (!isUuid(blockId)) return false;
  const rows = await db.query(
    'DELETE FROM interactive_blocks WHERE tenant_id = $1 AND bot_id = $2 AND id = $3 RETURNING id',
    [tenantId, botId, blockId],
  );
  return rows.length > 0;
}

export function listSteps(db: Queryable, tenantId: string, botId: string): Promise<StepRow[]> {
  return db.query<StepRow>(
    'SELECT * FROM flow_steps WHERE tenant_id = $1 AND bot_id = $2 ORDER BY step_order',
    [tenantId, botId],
  );
}

export function findStep(
  db: Queryable,
  tenantId: string,
  botId: string,
  stepId: string,
): Promise<StepRow | undefined> {
  if (!isUuid(stepId)) return Promise.resolve(undefined);
  return queryOne<StepRow>(db, 'SELECT * FROM flow_steps WHERE tenant_id = $1 AND bot_id = $2 AND id = $3', [
    tenantId,
    botId,
    stepId,
  ]);
}

/** Ids among `stepIds` that are steps of this bot. */
export async function existingStepIds(
  db: Queryable,
  tenantId: string,
  botId: string,
  stepIds: readonly string[],
): Promise<Set<string>> {
  const candidates = stepIds.filter(isUuid);
  if (candidates.length === 0) return new Set();
  const rows = await db.query<{ id: string }>(
    'SELECT id FROM flow_steps WHERE tenant_id = $1 AND bot_id = $2 AND id = ANY($3::uuid[])',
    [tenantId, botId, candidates],
  );
  return new Set(rows.map((r) => r.id));
}

export async function nextStepOrder(db: Queryable, tenantId: string, botId: string): Promise<number> {
  const row = await queryOne<{ next: number }>(
    db,
    'SELECT coalesce(max(step_order), 0) + 1 AS next FROM flow_steps WHERE tenant_id = $1 AND bot_id = $2',
    [tenantId, botId],
  );
  return row!.next;
}

export async function insertStep(
  db: Queryable,
  tenantId: string,
  botId: string,
  fields: StepFields,
): Promise<StepRow> {
  const placeholders = STEP_COLUMNS.map((_, i) => `$${i + 3}`);
  return (await queryOne<StepRow>(
    db,
    `INSERT INTO flow_steps (tenant_id, bot_id, ${STEP_COLUMNS.join(', ')})
     VALUES ($1, $2, ${placeholders.join(', ')}) RETURNING *`,
    [tenantId, botId, ...STEP_COLUMNS.map((c) => fields[c])],
  ))!;
}

export function updateStep(
  db: Queryable,
  tenantId: string,
  botId: string,
  stepId: string,
  fields: StepFields,
): Promise<StepRow | undefined> {
  const sets = STEP_COLUMNS.map((c, i) => `${c} = $${i + 4}`);
  return queryOne<StepRow>(
    db,
    `UPDATE flow_steps SET ${sets.join(', ')}, updated_at = now()
     WHERE tenant_id = $1 AND bot_id = $2 AND id = $3 RETURNING *`,
    [tenantId, botId, stepId, ...STEP_COLUMNS.map((c) => fields[c])],
  );
}

export async function deleteStep(
  db: Queryable,
  tenantId: string,
  botId: string,
  stepId: string,
): Promise<boolean> {
  if (!isUuid(stepId)) return false;
  const rows = await db.query(
    'DELETE FROM flow_steps WHERE tenant_id = $1 AND bot_id = $2 AND id = $3 RETURNING id',
    [tenantId, botId, stepId],
  );
  return rows.length > 0;
}

/**
 * Gives the bot's steps the orders 1…n in the sequence of `orderedIds` (which must name every
 * step exactly once). The unique (bot_id, step_order) key is deferred for the transaction.
 */
export async function renumberSteps(
  tx: Queryable,
  tenantId: string,
  botId: string,
  orderedIds: readonly string[],
): Promise<void> {
  await tx.query('SET CONSTRAINTS flow_steps_bot_order_key DEFERRED');
  await tx.query(
    `UPDATE flow_steps s SET step_order = o.ord, updated_at = now()
     FROM unnest($3::uuid[]) WITH ORDINALITY AS o(id, ord)
     WHERE s.tenant_id = $1 AND s.bot_id = $2 AND s.id = o.id`,
    [tenantId, botId, orderedIds],
  );
  await tx.query('SET CONSTRAINTS flow_steps_bot_order_key IMMEDIATE');
}

export function toFlowBlock(row: BlockRow): FlowBlock {
  return {
    id: row.id,
    name: row.name,
    blockType: row.block_type,
    items: row.items,
    isActive: row.is_active,
    triggerMode: row.trigger_mode,
    optionActions: row.option_actions,
    stepConfig: row.step_config,
    exits: row.exits,
  };
}

export function toFlowStep(row: StepRow): FlowStep {
  return {
    id: row.id,
    stepOrder: row.step_order,
    stepType: row.step_type,
    label: row.label,
    icon: row.icon,
    blockId: row.block_id,
    content: row.content,
    fieldName: row.field_name,
  };
}

/** Moves the steps at `from` and after one place down (to make room at `from`). */
export async function shiftStepsDown(
  db: Queryable,
  tenantId: string,
  botId: string,
  from: number,
): Promise<void> {
  await db.query(
    'UPDATE flow_steps SET step_order = step_order + 1 WHERE tenant_id = $1 AND bot_id = $2 AND step_order >= $3',
    [tenantId, botId, from],
  );
}

/** Moves the steps after `after` one place up (to close the gap of a deleted step). */
export async function shiftStepsUp(
  db: Queryable,
  tenantId: string,
  botId: string,
  after: number,
): Promise<void> {
  await db.query(
    'UPDATE flow_steps SET step_order = step_order - 1 WHERE tenant_id = $1 AND bot_id = $2 AND step_order > $3',
    [tenantId, botId, after],
  );
}

/** Stores the conversation's flow state (the conversation must exist). */
export async function saveFlowState(
  db: Queryable,
  ref: { tenantId: string; botId: string; conversationId: string },
  state: FlowState,
): Promise<void> {
  await db.query(
    `INSERT INTO conversation_flow_states
       (conversation_id, tenant_id, bot_id, step_id, block_id, awaiting, answers, started, ended)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9)
     ON CONFLICT (conversation_id) DO UPDATE SET
       step_id = EXCLUDED.step_id, block_id = EXCLUDED.block_id, awaiting = EXCLUDED.awaiting,
       answers = EXCLUDED.answers, started = EXCLUDED.started, ended = EXCLUDED.ended,
       updated_at = now()
     WHERE conversation_flow_states.tenant_id = EXCLUDED.tenant_id`,
    [
      ref.conversationId,
      ref.tenantId,
      ref.botId,
      state.stepId,
      state.blockId,
      state.awaiting,
      JSON.stringify(state.answers),
      state.started,
      state.ended,
    ],
  );
}
