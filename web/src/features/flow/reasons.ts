import type { Preflight } from '../../api/types';

export type BlockCheck = Pick<
  Preflight['blocks'][number],
  'status' | 'itemCount' | 'routing' | 'conditions' | 'targets'
>;
export interface Message {
  key: string;
  params?: Record<string, string | number>;
}

/**
 * Why a block has its pre-flight colour and what fixes it, as i18n keys: built from the
 * structured result (routing, conditions, target issues), because the server's `detail` and
 * `recommendation` are sentences in one language.
 */
export function blockReasons(check: BlockCheck): { reasons: Message[]; fixes: Message[] } {
  if (check.itemCount === 0) return { reasons: [{ key: 'flow.reasons.noItems' }], fixes: [] };
  if (!check.routing.ok)
    return { reasons: [{ key: 'flow.reasons.noRouting' }], fixes: [{ key: 'flow.fixes.noRouting' }] };
  const mode = check.routing.method.replace(/^trigger_mode:/, '');
  const reasons: Message[] = [{ key: 'flow.reasons.routedBy', params: { mode } }];
  const fixes: Message[] = [];
  if (check.conditions.set) {
    reasons.push({ key: 'flow.reasons.conditions', params: { count: check.conditions.count } });
  } else {
    reasons.push({ key: 'flow.reasons.noConditions' });
    fixes.push({ key: 'flow.fixes.noConditions' });
  }
  for (const issue of check.targets.issues)
    reasons.push({ key: `flow.reasons.${issue.kind}`, params: { key: issue.key } });
  for (const kind of new Set(check.targets.issues.map((i) => i.kind)))
    fixes.push({ key: `flow.fixes.${kind}` });
  if (check.targets.valid) reasons.push({ key: 'flow.reasons.targetsValid' });
  return { reasons, fixes };
}
