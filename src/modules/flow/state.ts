import type { Queryable } from '../../db/database.js';
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
