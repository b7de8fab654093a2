/**
 * The flow stage of the chat pipeline: `before` runs ahead of the model and may answer by
 * itself (a step's message, a block, an option's fixed reply, a hand-over — no model call);
 * `after` turns the model's block tags into block data; `save` stores the flow state once the
 * exchange is stored. The decisions are engine.ts's; this file only loads and stores.
 */
import type { Static } from '@sinclair/typebox';
import type { Queryable } from '../../db/database.js';
import type { ChatBlockSchema } from './schema.js';
import type { ModelProvider, ModelReply } from '../models/index.js';
import { INITIAL_FLOW_STATE, decideAfter, decideBefore, type Flow, type FlowState } from './engine.js';
import type { FlowBlock } from './model.js';
import { saveFlowState, toFlowBlock, toFlowStep, type BlockRow, type StepRow } from './repository.js';
import { toFlowState, type StateRow } from './state.js';

/** An interactive block as the chat response carries it. */
export type ChatBlock = Static<typeof ChatBlockSchema>;

/** A structured choice from the chat request: the block and item the user picked. */
export interface FlowChoice {
  blockId: string;
  itemId: string;
}

/** What the chat turn needs to know about the flow. */
export interface FlowTurn {
  flow: Flow;
  formal: boolean;
  loaded: FlowState;
  state: FlowState;
  /** The flow's own answer: the model is not called. */
  direct: { reply: string; handover: boolean; byOption?: boolean } | null;
  block: FlowBlock | null;
}

/** The model name a reply of the flow itself carries. */
export const FLOW_MODEL_NAME = 'flow';

interface TurnRef {
  tenantId: string;
  bot: { id: string; formal_address: boolean };
  conversationId: string;
  isNewConversation: boolean;
  userMessage: string;
}

export function chatBlock(block: FlowBlock): ChatBlock {
  return {
    id: block.id,
    type: block.blockType === 'list' ? 'list' : 'buttons',
    name: block.name,
    items: block.items.map((i) => ({ id: i.id, title: i.title, description: i.description ?? null })),
  };
}

/**
 * The rows the admission statement read for the turn (chat/repository.ts `TurnRows`): the bot's
 * active blocks and its steps, and the conversation's flow state (null for none or a new
 * conversation). The engine never looks at inactive blocks.
 */
export interface FlowRows {
  flowBlocks: unknown[];
  flowSteps: unknown[];
  flowState: unknown;
}

/** Before the model: reads the flow and the conversation's position and decides. */
export function before(turn: TurnRef, rows: FlowRows, choice: FlowChoice | null): FlowTurn {
  const flow: Flow = {
    blocks: (rows.flowBlocks as BlockRow[]).map(toFlowBlock),
    steps: (rows.flowSteps as StepRow[]).map(toFlowStep),
  };
  const current = rows.flowState ? toFlowState(rows.flowState as StateRow) : INITIAL_FLOW_STATE;
  const formal = turn.bot.formal_address;
  const decision = decideBefore(flow, current, { text: turn.userMessage, choice }, { formal });
  if (decision.kind === 'model') {
    return { flow, formal, loaded: current, state: decision.state, direct: null, block: null };
  }
  return {
    flow,
    formal,
    loaded: current,
    state: decision.state,
    direct: { reply: decision.reply, handover: decision.handover, byOption: choice !== null },
    block: decision.block,
  };
}

/** The model for this turn: the flow's own answer when it has one, else the real model. */
export function modelFor(turn: FlowTurn, model: ModelProvider): ModelProvider {
  const direct = turn.direct;
  if (!direct) return model;
  const reply: ModelReply = {
    text: direct.reply,
    model: FLOW_MODEL_NAME,
    promptTokens: 0,
    completionTokens: 0,
  };
  return {
    name: FLOW_MODEL_NAME,
    describe: () => ({ provider: FLOW_MODEL_NAME, model: FLOW_MODEL_NAME }),
    generate: () => Promise.resolve(reply),
    async *stream() {
      yield { type: 'delta', text: reply.text };
      yield { type: 'done', reply };
    },
  };
}

/** After the model: block tags leave the reply and become block data. */
export function after(turn: FlowTurn, reply: string): { reply: string; blocks: ChatBlock[] } {
  if (turn.direct) return { reply, blocks: turn.block ? [chatBlock(turn.block)] : [] };
  const decided = decideAfter(turn.flow, turn.state, reply, { formal: turn.formal });
  turn.state = decided.state;
  turn.block = decided.block;
  return { reply: decided.reply, blocks: decided.block ? [chatBlock(decided.block)] : [] };
}

/** Whether the turn moved the conversation's flow position. */
export function stateChanged(flowTurn: FlowTurn): boolean {
  return JSON.stringify(flowTurn.state) !== JSON.stringify(flowTurn.loaded);
}

/** Stores the new position, in the transaction that stores the exchange (after its conversation). */
export async function saveState(tx: Queryable, turn: TurnRef, flowTurn: FlowTurn): Promise<void> {
  await saveFlowState(
    tx,
    { tenantId: turn.tenantId, botId: turn.bot.id, conversationId: turn.conversationId },
    flowTurn.state,
  );
}

/**
 * The hand-over the flow decided this turn (a `handover` step or option), if any: stored by
 * the exchange itself, so the conversation waits for a person from the same commit on.
 */
export function handoverOf(flowTurn: FlowTurn): { reason: 'flow_option' | 'flow_step' } | null {
  if (!flowTurn.direct?.handover) return null;
  return { reason: flowTurn.direct.byOption ? 'flow_option' : 'flow_step' };
}
