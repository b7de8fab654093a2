import type { Edge, Node } from '@xyflow/react';
import type { Preflight } from '../../api/types';

type Analysis = Preflight['flowAnalysis'];
export type StepState = 'ok' | 'unreachable' | 'deadEnd';

export interface StepNodeData extends Record<string, unknown> {
  label: string;
  /** The step's id; absent on the END node. */
  stepId?: string;
  state: StepState;
  blockStatus: 'green' | 'orange' | 'red' | null;
}

export const END_NODE = 'end';
const COLOURS: Record<string, string> = { green: '#2b8a3e', orange: '#d9480f', red: '#c92a2a' };

/**
 * The flow as a graph: one node per step in order (top to bottom), an END node, an edge per
 * transition; unreachable steps and dead ends from the pre-flight are marked on their nodes.
 */
export function flowGraph(
  analysis: Analysis,
  blocks: Preflight['blocks'],
  selectedStepId: string | null = null,
): { nodes: Node<StepNodeData>[]; edges: Edge[] } {
  const statusOfBlock = new Map(blocks.map((b) => [b.blockId, b.status]));
  const unreachable = new Set(analysis.unreachableSteps);
  const deadEnds = new Set(analysis.deadEnds);
  const nodes: Node<StepNodeData>[] = analysis.steps.map((step, index) => {
    const state: StepState = unreachable.has(step.stepOrder)
      ? 'unreachable'
      : deadEnds.has(step.stepOrder)
        ? 'deadEnd'
        : 'ok';
    const blockStatus = step.blockId ? (statusOfBlock.get(step.blockId) ?? null) : null;
    return {
      id: String(step.stepOrder),
      position: { x: 0, y: index * 110 },
      data: { label: `${step.stepOrder}. ${step.label}`, stepId: step.stepId, state, blockStatus },
      selected: step.stepId === selectedStepId,
      style: {
        boxShadow: step.stepId === selectedStepId ? '0 0 0 3px #228be6' : undefined,
        border: `2px ${state === 'ok' ? 'solid' : 'dashed'} ${state === 'ok' ? (blockStatus ? COLOURS[blockStatus] : '#495057') : '#c92a2a'}`,
        background: state === 'ok' ? '#fff' : '#fff5f5',
        color: '#212529',
        width: 220,
      },
    };
  });
  nodes.push({
    id: END_NODE,
    position: { x: 0, y: analysis.steps.length * 110 },
    data: { label: 'END', state: 'ok', blockStatus: null },
    type: 'output',
    style: {
      border: '2px solid #212529',
      background: '#f1f3f5',
      color: '#212529',
      width: 120,
      fontWeight: 700,
    },
  });
  const edges: Edge[] = analysis.edges.map((edge, index) => ({
    id: `e${index}`,
    source: String(edge.from),
    target: edge.to === 'end' ? END_NODE : String(edge.to),
    label: edge.via ?? (edge.type === 'linear' ? undefined : edge.type),
    animated: edge.type === 'condition',
    type: edge.type === 'linear' ? 'straight' : 'smoothstep',
  }));
  return { nodes, edges };
}
