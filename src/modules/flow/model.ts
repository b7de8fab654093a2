/**
 * The one reading of a bot's conversation flow, shared by the pre-flight analysis (what is
 * drawn and checked) and the flow engine (what runs). Pure: no I/O.
 */

export interface BlockItem {
  id: string;
  title: string;
  description?: string;
}

export type OptionAction =
  { action: 'goto_step'; step_id: string } | { action: 'reply'; text: string } | { action: 'handover' };

export interface BlockCondition {
  field: string;
  operator: 'equals' | 'not_equals' | 'contains' | 'exists';
  value?: string;
}

export interface StepConfig {
  conditions?: BlockCondition[];
  keywords?: string[];
}

export interface FlowBlock {
  id: string;
  name: string;
  blockType: string;
  items: BlockItem[];
  isActive: boolean;
  triggerMode: string | null;
  optionActions: Record<string, OptionAction>;
  stepConfig: StepConfig;
  /** Exit name → flow step id, or `end`. */
  exits: Record<string, string>;
}

export interface FlowStep {
  id: string;
  stepOrder: number;
  stepType: string;
  label: string;
  icon: string | null;
  blockId: string | null;
  /** Text of a message or hand-over step, the question of an input step, the intro of a block step. */
  content?: string | null;
  /** Answer field an input step fills. */
  fieldName?: string | null;
}

export const END_TARGET = 'end';
/** The only exit key the flow engine follows on its own. */
export const DEFAULT_EXIT = 'default';

export function conditionsOf(block: FlowBlock): BlockCondition[] {
  const conditions = block.stepConfig.conditions;
  return Array.isArray(conditions) ? conditions : [];
}

/** A block is routed when it has a trigger mode or option actions; otherwise it is a dead end. */
export function hasRouting(block: FlowBlock): boolean {
  return block.triggerMode !== null || Object.keys(block.optionActions).length > 0;
}

/**
 * Where the flow may go after a block was answered (and its option action did not jump):
 * - `exit`: the `default` exit's target (a step id or `end`), taken when the block's conditions
 *   hold — always when it has none;
 * - `linear`: whether the next step by step_order can follow — when there is no default exit,
 *   or when conditions are set and may fail;
 * - `stops`: a block that offers choices without any routing ends the flow where it stands.
 */
export function continuationAfter(block: FlowBlock): {
  exit: string | undefined;
  linear: boolean;
  stops: boolean;
} {
  if (block.items.length > 0 && !hasRouting(block)) return { exit: undefined, linear: false, stops: true };
  const exit = block.exits[DEFAULT_EXIT];
  return { exit, linear: exit === undefined || conditionsOf(block).length > 0, stops: false };
}

/** Whether a block is shown to the user by a step: active and with something to choose. */
export function isShowable(block: FlowBlock | undefined): block is FlowBlock {
  return block !== undefined && block.isActive && block.items.length > 0;
}

/** Steps in flow order; the first one is the entry. */
export function orderedSteps(steps: readonly FlowStep[]): FlowStep[] {
  return [...steps].sort((a, b) => a.stepOrder - b.stepOrder);
}
