import type { FlowState } from './engine.js';

export interface StateRow {
  step_id: string | null;
  block_id: string | null;
  awaiting: FlowState['awaiting'];
  answers: Record<string, string>;
  started: boolean;
  ended: boolean;
}

/** A stored flow state row as the engine reads it. */
export function toFlowState(row: StateRow): FlowState {
  return {
    stepId: row.step_id,
    blockId: row.block_id,
    awaiting: row.awaiting,
    answers: row.answers,
    started: row.started,
    ended: row.ended,
  };
}
