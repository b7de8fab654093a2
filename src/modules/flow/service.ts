import type { Database, Queryable } from '../../db/database.js';
import { badRequest, conflict, notFound } from '../../http/errors.js';
import { findBot, lockBot } from '../bots/index.js';
import { END_TARGET } from './model.js';
import {
  deleteBlock,
  deleteStep,
  existingStepIds,
  findBlock,
  findStep,
  insertBlock,
  insertStep,
  listBlocks,
  listSteps,
  nextStepOrder,
  renumberSteps,
  shiftStepsDown,
  shiftStepsUp,
  updateBlock,
  updateStep,
  type BlockFields,
  type BlockRow,
  type StepRow,
} from './repository.js';
import type { CreateBlockInput, CreateStepInput, UpdateBlockInput, UpdateStepInput } from './schema.js';

/** The flow rows and their model form, for the pre-flight analysis. */

export interface BotRef {
  tenantId: string;
  botId: string;
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

/** Block names are unique per bot; the database decides, this turns its answer into a 409. */
async function withNameConflict<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error))
      throw conflict(`A block named '${name}' already exists for this bot`, {
        code: 'block_name_taken',
        field: 'name',
      });
    throw error;
  }
}

async function requireLockedBot(tx: Queryable, ref: BotRef): Promise<void> {
  if (!(await lockBot(tx, ref.tenantId, ref.botId))) throw notFound('Bot');
}

async function requireBot(db: Queryable, ref: BotRef): Promise<void> {
  if (!(await findBot(db, ref.tenantId, ref.botId))) throw notFound('Bot');
}

/**
 * Checks what the schema cannot: unique item ids, actions only for existing items, and every
 * step a block jumps to is a step of this very bot.
 */
async function validateBlock(tx: Queryable, ref: BotRef, fields: BlockFields): Promise<void> {
  const itemIds = new Set<string>();
  for (const item of fields.items) {
    if (itemIds.has(item.id))
      throw badRequest(`Field 'items' contains the item id '${item.id}' twice`, {
        code: 'duplicate_item',
        field: 'items',
      });
    itemIds.add(item.id);
  }
  for (const key of Object.keys(fields.option_actions)) {
    if (!itemIds.has(key))
      throw badRequest(`Field 'option_actions.${key}' names no item of this block`, {
        code: 'reference_unknown',
        field: 'option_actions',
        path: `option_actions.${key}`,
      });
  }
  const targets: Array<{ field: string; stepId: string }> = [];
  for (const [key, action] of Object.entries(fields.option_actions)) {
    if (action.action === 'goto_step')
      targets.push({ field: `option_actions.${key}.step_id`, stepId: action.step_id });
  }
  for (const [key, target] of Object.entries(fields.exits)) {
    if (target !== END_TARGET) targets.push({ field: `exits.${key}`, stepId: target });
  }
  const existing = await existingStepIds(
    tx,
    ref.tenantId,
    ref.botId,
    targets.map((t) => t.stepId),
  );
  const foreign = targets.find((t) => !existing.has(t.stepId));
  if (foreign)
    throw badRequest(`Field '${foreign.field}' names no flow step of this bot`, {
      code: 'reference_unknown',
      field: foreign.field.split('.')[0]!,
      path: foreign.field,
    });
}

export async function listBotBlocks(db: Queryable, ref: BotRef): Promise<BlockRow[]> {
  await requireBot(db, ref);
  return listBlocks(db, ref.tenantId, ref.botId);
}

export async function getBlock(db: Queryable, ref: BotRef, blockId: string): Promise<BlockRow> {
  await requireBot(db, ref);
  const block = await findBlock(db, ref.tenantId, ref.botId, blockId);
  if (!block) throw notFound('Block');
  return block;
}

export function createBlock(
  db: Database,
  ref: BotRef,
  input: CreateBlockInput,
  createdBy: string | null,
): Promise<BlockRow> {
  const fields: BlockFields = {
    name: input.name,
    block_type: input.block_type,
    items: input.items ?? [],
    is_active: input.is_active ?? true,
    trigger_mode: input.trigger_mode ?? null,
    option_actions: input.option_actions ?? {},
    step_config: input.step_config ?? {},
    exits: input.exits ?? {},
  };
  return withNameConflict(fields.name, () =>
    db.transaction(async (tx) => {
      await requireLockedBot(tx, ref);
      await validateBlock(tx, ref, fields);
      return insertBlock(tx, ref.tenantId, ref.botId, fields, createdBy);
    }),
  );
}

/** Applies the given fields over the stored block and validates the result as a whole. */
export function changeBlock(
  db: Database,
  ref: BotRef,
  blockId: string,
  input: UpdateBlockInput,
): Promise<BlockRow> {
  return withNameConflict(input.name, () =>
    db.transaction(async (tx) => {
      await requireLockedBot(tx, ref);
      const current = await findBlock(tx, ref.tenantId, ref.botId, blockId);
      if (!current) throw notFound('Block');
      const fields: BlockFields = {
        name: input.name ?? current.name,
        block_type: input.block_type ?? current.block_type,
        items: input.items ?? current.items,
        is_active: input.is_active ?? current.is_active,
        trigger_mode: input.trigger_mode === undefined ? current.trigger_mode : input.trigger_mode,
        option_actions: input.option_actions ?? current.option_actions,
        step_config: input.step_config ?? current.step_config,
        exits: input.exits ?? current.exits,
      };
      await validateBlock(tx, ref, fields);
      return (await updateBlock(tx, ref.tenantId, ref.botId, blockId, fields))!;
    }),
  );
}

/** Removes a block; steps that showed it stay, without a block. */
export function removeBlock(db: Database, ref: BotRef, blockId: string): Promise<void> {
  return db.transaction(async (tx) => {
    await requireLockedBot(tx, ref);
    if (!(await deleteBlock(tx, ref.tenantId, ref.botId, blockId))) throw notFound('Block');
  });
}

export async function listBotSteps(db: Queryable, ref: BotRef): Promise<StepRow[]> {
  await requireBot(db, ref);
  return listSteps(db, ref.tenantId, ref.botId);
}

export async function getStep(db: Queryable, ref: BotRef, stepId: string): Promise<StepRow> {
  await requireBot(db, ref);
  const step = await findStep(db, ref.tenantId, ref.botId, stepId);
  if (!step) throw notFound('Flow step');
  return step;
}

async function requireOwnBlock(
  tx: Queryable,
  ref: BotRef,
  blockId: string | null | undefined,
): Promise<void> {
  if (blockId && !(await findBlock(tx, ref.tenantId, ref.botId, blockId))) {
    throw badRequest("Field 'block_id' names no block of this bot", {
      code: 'reference_unknown',
      field: 'block_id',
    });
  }
}

/**
 * Inserts a step at `step_order` (later steps move one down) or at the end. Orders stay 1…n
 * without gaps, which is what "step 1" and "the last step" of the analysis rely on.
 */
export function createStep(db: Database, ref: BotRef, input: CreateStepInput): Promise<StepRow> {
  return db.transaction(async (tx) => {
    await requireLockedBot(tx, ref);
    await requireOwnBlock(tx, ref, input.block_id);
    const end = await nextStepOrder(tx, ref.tenantId, ref.botId);
    const position = Math.min(input.step_order ?? end, end);
    if (position < end) {
      // One statement: the deferrable unique key is checked at its end, not row by row.
      await shiftStepsDown(tx, ref.tenantId, ref.botId, position);
    }
    return insertStep(tx, ref.tenantId, ref.botId, {
      step_order: position,
      step_type: input.step_type,
      label: input.label,
      icon: input.icon ?? null,
      block_id: input.block_id ?? null,
      content: input.content ?? null,
      field_name: input.field_name ?? null,
    });
  });
}

export function changeStep(
  db: Database,
  ref: BotRef,
  stepId: string,
  input: UpdateStepInput,
): Promise<StepRow> {
  return db.transaction(async (tx) => {
    await requireLockedBot(tx, ref);
    const current = await findStep(tx, ref.tenantId, ref.botId, stepId);
    if (!current) throw notFound('Flow step');
    await requireOwnBlock(tx, ref, input.block_id);
    let order = current.step_order;
    if (input.step_order !== undefined && input.step_order !== current.step_order) {
      const ids = (await listSteps(tx, ref.tenantId, ref.botId))
        .map((s) => s.id)
        .filter((id) => id !== stepId);
      const index = Math.min(input.step_order, ids.length + 1) - 1;
      ids.splice(index, 0, stepId);
      await renumberSteps(tx, ref.tenantId, ref.botId, ids);
      order = index + 1;
    }
    return (await updateStep(tx, ref.tenantId, ref.botId, stepId, {
      step_order: order,
      step_type: input.step_type ?? current.step_type,
      label: input.label ?? current.label,
      icon: input.icon === undefined ? current.icon : input.icon,
      block_id: input.block_id === undefined ? current.block_id : input.block_id,
      content: input.content === undefined ? current.content : input.content,
      field_name: input.field_name === undefined ? current.field_name : input.field_name,
    }))!;
  });
}

export function reorderSteps(db: Database, ref: BotRef, stepIds: readonly string[]): Promise<StepRow[]> {
  return db.transaction(async (tx) => {
    await requireLockedBot(tx, ref);
    const steps = await listSteps(tx, ref.tenantId, ref.botId);
    const given = new Set(stepIds);
    if (given.size !== stepIds.length || given.size !== steps.length || steps.some((s) => !given.has(s.id))) {
      throw badRequest("Field 'step_ids' must name every flow step of this bot exactly once", {
        code: 'list_incomplete',
        field: 'step_ids',
      });
    }
    await renumberSteps(tx, ref.tenantId, ref.botId, stepIds);
    return listSteps(tx, ref.tenantId, ref.botId);
  });
}

export interface DanglingReference {
  block_id: string;
  block_name: string;
  key: string;
}

/**
 * Deletes a step and closes the gap. Blocks that still jump to it are reported, not changed:
 * the pre-flight check flags them until they are fixed.
 */
export function removeStep(db: Database, ref: BotRef, stepId: string): Promise<DanglingReference[]> {
  return db.transaction(async (tx) => {
    await requireLockedBot(tx, ref);
    const step = await findStep(tx, ref.tenantId, ref.botId, stepId);
    if (!step || !(await deleteStep(tx, ref.tenantId, ref.botId, stepId))) throw notFound('Flow step');
    await shiftStepsUp(tx, ref.tenantId, ref.botId, step.step_order);
    const dangling: DanglingReference[] = [];
    for (const block of await listBlocks(tx, ref.tenantId, ref.botId)) {
      for (const [key, target] of Object.entries(block.exits)) {
        if (target === stepId) dangling.push({ block_id: block.id, block_name: block.name, key });
      }
      for (const [key, action] of Object.entries(block.option_actions)) {
        if (action.action === 'goto_step' && action.step_id === stepId) {
          dangling.push({ block_id: block.id, block_name: block.name, key });
        }
      }
    }
    return dangling;
  });
}
