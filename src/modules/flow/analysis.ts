/**
 * Pre-flight analysis of a bot's conversation flow: a pure function of its interactive blocks
 * and flow steps. No I/O; the service loads the rows and the routes serialise the result.
 * It reads the flow through flow/model.ts, as the flow engine does, so what it draws is what runs.
 */
import {
  DEFAULT_EXIT,
  END_TARGET,
  conditionsOf,
  continuationAfter,
  hasRouting,
  orderedSteps,
  type FlowBlock,
  type FlowStep,
} from './model.js';

export type BlockStatus = 'green' | 'orange' | 'red';

export interface TargetIssue {
  kind: 'missing_exit_target' | 'untriggered_exit_key' | 'missing_goto_target';
  /** Exit name or item id the issue belongs to. */
  key: string;
  target: string | null;
  message: string;
}

export interface BlockCheck {
  blockId: string;
  blockName: string;
  blockType: string;
  itemCount: number;
  status: BlockStatus;
  routing: { ok: boolean; method: string };
  conditions: { set: boolean; count: number };
  targets: { valid: boolean; issues: TargetIssue[] };
  detail: string;
  recommendation: string | null;
}

export type EdgeType = 'linear' | 'exit' | 'condition';

export interface FlowEdge {
  from: number;
  /** Step order of the target, or `end`. */
  to: number | 'end';
  type: EdgeType;
  /** Exit name or item id that causes the jump; absent for linear edges. */
  via?: string;
}

export interface FlowAnalysis {
  steps: Array<{
    stepId: string;
    stepOrder: number;
    stepType: string;
    label: string;
    icon: string | null;
    blockId: string | null;
  }>;
  edges: FlowEdge[];
  /** Step orders that cannot be reached from the first step (the first step never counts). */
  unreachableSteps: number[];
  /** Step orders without any successor, except the last step. */
  deadEnds: number[];
}

export interface PreflightAnalysis {
  canActivate: boolean;
  blocks: BlockCheck[];
  summary: { total: number; green: number; orange: number; red: number };
  flowAnalysis: FlowAnalysis;
}

function conditionCount(block: FlowBlock): number {
  return conditionsOf(block).length;
}

function routingMethod(block: FlowBlock): string {
  if (block.triggerMode !== null) return `trigger_mode:${block.triggerMode}`;
  if (Object.keys(block.optionActions).length > 0) return 'trigger_mode:option_actions';
  return 'trigger_mode:none';
}

function targetIssues(block: FlowBlock, stepIds: ReadonlySet<string>): TargetIssue[] {
  const issues: TargetIssue[] = [];
  for (const [key, target] of Object.entries(block.exits)) {
    if (target !== END_TARGET && !stepIds.has(target)) {
      issues.push({
        kind: 'missing_exit_target',
        key,
        target,
        message: `Exit „${key}“ verweist auf einen Schritt, den es in diesem Flow nicht gibt.`,
      });
    }
    if (key !== DEFAULT_EXIT) {
      issues.push({
        kind: 'untriggered_exit_key',
        key,
        target,
        message: `Exit „${key}“ wird von der Flow-Engine nie ausgelöst – nur der Exit „default“ wird verwendet.`,
      });
    }
  }
  for (const [item, action] of Object.entries(block.optionActions)) {
    if (action.action === 'goto_step' && !stepIds.has(action.step_id)) {
      issues.push({
        kind: 'missing_goto_target',
        key: item,
        target: action.step_id,
        message: `Die Aktion „goto_step“ der Option „${item}“ verweist auf einen Schritt, den es nicht gibt.`,
      });
    }
  }
  return issues;
}

const RECOMMENDATION: Record<TargetIssue['kind'], string> = {
  missing_exit_target: 'Exit-Ziele auf einen vorhandenen Schritt oder auf „end“ setzen.',
  untriggered_exit_key:
    'Nur den Exit „default“ verwenden; Verzweigungen je Option über option_actions mit goto_step abbilden.',
  missing_goto_target: 'goto_step-Aktionen auf einen vorhandenen Schritt richten.',
};

export function checkBlock(block: FlowBlock, stepIds: ReadonlySet<string>): BlockCheck {
  const routingOk = hasRouting(block);
  const count = conditionCount(block);
  const issues = targetIssues(block, stepIds);
  const base = {
    blockId: block.id,
    blockName: block.name,
    blockType: block.blockType,
    itemCount: block.items.length,
    routing: { ok: routingOk, method: routingMethod(block) },
    conditions: { set: count > 0, count },
    targets: { valid: issues.length === 0, issues },
  };

  if (block.items.length === 0) {
    return {
      ...base,
      status: 'green',
      detail: 'Der Block hat keine Einträge und zeigt dem Nutzer keine Auswahl – es gibt nichts zu prüfen.',
      recommendation: null,
    };
  }
  if (!routingOk) {
    return {
      ...base,
      status: 'red',
      detail:
        'Kein Routing konfiguriert: weder trigger_mode noch option_actions sind gesetzt. Der Block ist eine Sackgasse.',
      recommendation: 'Einen trigger_mode setzen oder für die Optionen option_actions definieren.',
    };
  }
  if (count > 0 && issues.length === 0) {
    return {
      ...base,
      status: 'green',
      detail: `Routing über ${base.routing.method}, ${count} ${count === 1 ? 'Bedingung' : 'Bedingungen'} gesetzt, alle Ziele sind gültig.`,
      recommendation: null,
    };
  }

  const problems: string[] = [];
  const fixes: string[] = [];
  if (count === 0) {
    problems.push(
      'Keine Bedingungen in step_config.conditions – der Flow läuft nach dem Block linear weiter.',
    );
    fixes.push('Bedingungen in step_config.conditions ergänzen, wenn der Block verzweigen soll.');
  }
  for (const issue of issues) problems.push(issue.message);
  for (const kind of new Set(issues.map((i) => i.kind))) fixes.push(RECOMMENDATION[kind]);
  return {
    ...base,
    status: 'orange',
    detail: `Routing über ${base.routing.method}. ${problems.join(' ')}`,
    recommendation: fixes.join(' '),
  };
}

/** Edges leaving one step, by the rules documented in docs/preflight.md. */
function stepEdges(
  step: FlowStep,
  next: FlowStep | undefined,
  block: FlowBlock | undefined,
  orderOf: ReadonlyMap<string, number>,
): FlowEdge[] {
  const edges: FlowEdge[] = [];
  const from = step.stepOrder;
  if (block) {
    for (const [key, target] of Object.entries(block.exits)) {
      if (target === END_TARGET) {
        edges.push({ from, to: 'end', type: 'exit', via: key });
        continue;
      }
      const to = orderOf.get(target);
      if (to !== undefined)
        edges.push({ from, to, type: key === DEFAULT_EXIT ? 'exit' : 'condition', via: key });
    }
    for (const [item, action] of Object.entries(block.optionActions)) {
      if (action.action !== 'goto_step') continue;
      const to = orderOf.get(action.step_id);
      if (to !== undefined) edges.push({ from, to, type: 'condition', via: item });
    }
  }
  // The default exit replaces the linear continuation unless conditions may send the flow on
  // linearly, and a block that offers choices without any routing stops the conversation.
  const linear = block === undefined || continuationAfter(block).linear;
  if (next && linear) edges.push({ from, to: next.stepOrder, type: 'linear' });
  return edges;
}

export function analyseFlow(blocks: readonly FlowBlock[], steps: readonly FlowStep[]): FlowAnalysis {
  const ordered = orderedSteps(steps);
  const activeBlocks = new Map(blocks.filter((b) => b.isActive).map((b) => [b.id, b]));
  const orderOf = new Map(ordered.map((s) => [s.id, s.stepOrder]));

  const edges = ordered.flatMap((step, i) =>
    stepEdges(step, ordered[i + 1], step.blockId ? activeBlocks.get(step.blockId) : undefined, orderOf),
  );

  const successors = new Map<number, number[]>();
  for (const edge of edges) {
    if (edge.to === 'end') continue;
    const list = successors.get(edge.from) ?? [];
    list.push(edge.to);
    successors.set(edge.from, list);
  }
  // Reachability from the first step; the visited set makes cycles harmless.
  const reached = new Set<number>();
  const first = ordered[0];
  if (first) {
    const queue = [first.stepOrder];
    reached.add(first.stepOrder);
    while (queue.length > 0) {
      const current = queue.shift()!;
      for (const target of successors.get(current) ?? []) {
        if (!reached.has(target)) {
          reached.add(target);
          queue.push(target);
        }
      }
    }
  }

  const withSuccessor = new Set(edges.map((e) => e.from));
  const last = ordered[ordered.length - 1];
  return {
    steps: ordered.map((s) => ({
      stepId: s.id,
      stepOrder: s.stepOrder,
      stepType: s.stepType,
      label: s.label,
      icon: s.icon,
      blockId: s.blockId,
    })),
    edges,
    unreachableSteps: ordered.filter((s) => !reached.has(s.stepOrder)).map((s) => s.stepOrder),
    deadEnds: ordered.filter((s) => s !== last && !withSuccessor.has(s.stepOrder)).map((s) => s.stepOrder),
  };
}

/** The full analysis: every active block checked, the flow graph, and whether the bot may go live. */
export function analysePreflight(
  blocks: readonly FlowBlock[],
  steps: readonly FlowStep[],
): PreflightAnalysis {
  const stepIds = new Set(steps.map((s) => s.id));
  const checks = blocks.filter((b) => b.isActive).map((b) => checkBlock(b, stepIds));
  const summary = {
    total: checks.length,
    green: checks.filter((c) => c.status === 'green').length,
    orange: checks.filter((c) => c.status === 'orange').length,
    red: checks.filter((c) => c.status === 'red').length,
  };
  return {
    canActivate: summary.red === 0,
    blocks: checks,
    summary,
    flowAnalysis: analyseFlow(blocks, steps),
  };
}
