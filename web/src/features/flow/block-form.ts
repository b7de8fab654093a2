import type { Block, Body } from '../../api/types';

/** How a block is started: always, on a keyword, or from the flow. */
export const TRIGGERS = ['auto', 'keyword', 'flow'] as const;

/** The choices of a block's trigger, "none" first (the empty value). */
export function triggerOptions(t: (key: string) => string): { value: string; label: string }[] {
  return [
    { value: '', label: t('flow.triggers.none') },
    ...TRIGGERS.map((m) => ({ value: m, label: t(`flow.triggers.${m}`) })),
  ];
}

type BlockPatchBody = Body<'/api/bots/{id}/blocks/{blockId}', 'patch'>;

export type ActionKind = 'none' | 'goto_step' | 'reply' | 'handover';
export interface ItemRow {
  id: string;
  title: string;
  action: ActionKind;
  step_id: string;
  text: string;
}
export interface ConditionRow {
  field: string;
  operator: 'equals' | 'not_equals' | 'contains' | 'exists';
  value: string;
}
export interface ExitRow {
  name: string;
  target: string;
}
export interface BlockValues {
  name: string;
  trigger_mode: string;
  items: ItemRow[];
  conditions: ConditionRow[];
  keywords: string[];
  exits: ExitRow[];
}

/** The editable form of a block: one row per item with its option action, conditions, exits. */
export function blockValues(block: Block): BlockValues {
  return {
    name: block.name,
    trigger_mode: block.trigger_mode ?? '',
    items: block.items.map((item) => {
      const action = block.option_actions[item.id];
      return {
        id: item.id,
        title: item.title,
        action: action?.action ?? 'none',
        step_id: action?.action === 'goto_step' ? action.step_id : '',
        text: action?.action === 'reply' ? action.text : '',
      };
    }),
    conditions: (block.step_config.conditions ?? []).map((c) => ({
      field: c.field,
      operator: c.operator,
      value: c.value ?? '',
    })),
    keywords: block.step_config.keywords ?? [],
    exits: Object.entries(block.exits).map(([name, target]) => ({ name, target })),
  };
}

/** An id for a new item that no existing item has (option actions are keyed by item id). */
export function nextItemId(items: readonly { id: string }[]): string {
  const taken = new Set(items.map((i) => i.id));
  let n = items.length + 1;
  while (taken.has(`item-${n}`)) n += 1;
  return `item-${n}`;
}

/** The PATCH body of the edited block; an item without an action gets none. */
export function blockPatch(values: BlockValues): BlockPatchBody {
  const option_actions: NonNullable<BlockPatchBody['option_actions']> = {};
  for (const item of values.items) {
    if (item.action === 'goto_step') option_actions[item.id] = { action: 'goto_step', step_id: item.step_id };
    else if (item.action === 'reply') option_actions[item.id] = { action: 'reply', text: item.text.trim() };
    else if (item.action === 'handover') option_actions[item.id] = { action: 'handover' };
  }
  const step_config: NonNullable<BlockPatchBody['step_config']> = {};
  if (values.conditions.length > 0)
    step_config.conditions = values.conditions.map((c) => ({
      field: c.field.trim(),
      operator: c.operator,
      ...(c.operator !== 'exists' && c.value.trim() ? { value: c.value.trim() } : {}),
    }));
  if (values.keywords.length > 0) step_config.keywords = values.keywords;
  return {
    name: values.name.trim(),
    trigger_mode: (values.trigger_mode || null) as BlockPatchBody['trigger_mode'],
    items: values.items.map((i) => ({ id: i.id, title: i.title.trim() })),
    option_actions,
    step_config,
    exits: Object.fromEntries(values.exits.map((e) => [e.name.trim(), e.target])),
  };
}

/** Problems to fix before saving, as i18n keys by form path (the API checks again). */
export function blockProblems(values: BlockValues): Record<string, string> {
  const problems: Record<string, string> = {};
  if (!values.name.trim()) problems.name = 'flow.nameRequired';
  values.items.forEach((item, i) => {
    if (!item.title.trim()) problems[`items.${i}.title`] = 'flow.edit.itemTitleRequired';
    if (item.action === 'goto_step' && !item.step_id)
      problems[`items.${i}.step_id`] = 'flow.edit.stepRequired';
    if (item.action === 'reply' && !item.text.trim()) problems[`items.${i}.text`] = 'flow.edit.textRequired';
  });
  values.conditions.forEach((c, i) => {
    if (!c.field.trim()) problems[`conditions.${i}.field`] = 'flow.edit.fieldRequired';
    if (c.operator !== 'exists' && !c.value.trim())
      problems[`conditions.${i}.value`] = 'flow.edit.valueRequired';
  });
  const names = new Set<string>();
  values.exits.forEach((e, i) => {
    const name = e.name.trim();
    if (!/^[A-Za-z0-9_-]{1,50}$/.test(name)) problems[`exits.${i}.name`] = 'flow.edit.exitNameInvalid';
    else if (names.has(name)) problems[`exits.${i}.name`] = 'flow.edit.exitNameTwice';
    names.add(name);
    if (!e.target) problems[`exits.${i}.target`] = 'flow.edit.targetRequired';
  });
  return problems;
}
