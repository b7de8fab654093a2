/**
 * The flow engine's decisions: a pure function of the bot's flow (steps and blocks), the
 * conversation's flow state and the inbound message. No I/O — flow/stage.ts loads and stores,
 * the chat pipeline calls it. It reads the flow through model.ts, as the pre-flight does.
 */
import {
  END_TARGET,
  conditionsOf,
  continuationAfter,
  isShowable,
  orderedSteps,
  type BlockCondition,
  type FlowBlock,
  type FlowStep,
} from './model.js';

/** Where a conversation stands in its bot's flow. */
export interface FlowState {
  /** The step waiting for an answer (an input step or the step showing the pending block). */
  stepId: string | null;
  /** The block whose choice is awaited. */
  blockId: string | null;
  awaiting: 'choice' | 'input' | null;
  /** Collected answers: input fields by field name, block choices (item ids) by block name. */
  answers: Record<string, string>;
  /** The flow ran from its first step (it starts once per conversation). */
  started: boolean;
  ended: boolean;
}

export const INITIAL_FLOW_STATE: FlowState = {
  stepId: null,
  blockId: null,
  awaiting: null,
  answers: {},
  started: false,
  ended: false,
};

export interface Flow {
  blocks: readonly FlowBlock[];
  steps: readonly FlowStep[];
}

export interface FlowMessage {
  text: string;
  /** A structured choice: the block and item the user picked. */
  choice?: { blockId: string; itemId: string } | null;
}

export interface EngineOptions {
  /** The bot addresses users formally (Sie) — for the engine's few own texts. */
  formal: boolean;
}

/** A decision before the model. */
export type FlowDecision =
  | {
      /** The flow answers by itself: no model call. */
      kind: 'answer';
      reply: string;
      block: FlowBlock | null;
      handover: boolean;
      state: FlowState;
    }
  /** The model answers; `state` is what the flow recorded (e.g. a choice without an action). */
  | { kind: 'model'; state: FlowState };

/** Longest answer an input step keeps. */
export const MAX_ANSWER_CHARS = 1000;

export const FLOW_TEXT = {
  choose: { formal: 'Bitte wählen Sie:', informal: 'Bitte wähle:' },
  handover: {
    formal: 'Ich gebe Ihr Anliegen an einen Mitarbeiter weiter. Sie erhalten hier eine Antwort.',
    informal: 'Ich gebe dein Anliegen an einen Mitarbeiter weiter. Du erhältst hier eine Antwort.',
  },
} as const;

const text = (options: EngineOptions, key: keyof typeof FLOW_TEXT) =>
  FLOW_TEXT[key][options.formal ? 'formal' : 'informal'];

// ---------------------------------------------------------------------------------------------
// Keywords: matched as words, with German inflection and compounds and English forms.

/** Lower case, umlauts and ß folded, so "Kürse" and "kuerse" compare alike. */
export function foldWord(word: string): string {
  return word
    .toLowerCase()
    .normalize('NFKD')
    .replace(/ß/g, 'ss')
    .replace(/[\u0300-\u036f]/g, '');
}

function words(input: string): string[] {
  return (foldWord(input).match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 0);
}

const GERMAN_ENDINGS = ['', 'e', 'en', 'n', 's', 'es', 'er', 'ern', 'se', 'sen'];
const ENGLISH_ENDINGS = ['', 's', 'es', 'ing', 'ed', 'd'];
/** Shortest other part of a compound ("Yoga|kurs", "Kurs|angebot"). */
const MIN_COMPOUND_PART = 4;
/** Shortest keyword that is looked for inside compounds. */
const MIN_COMPOUND_KEYWORD = 4;

function inflected(word: string, keyword: string): boolean {
  if (!word.startsWith(keyword)) {
    // English -y → -ies ("category" → "categories"), silent -e dropped before -ing ("book|ing" aside).
    if (keyword.endsWith('y') && word === `${keyword.slice(0, -1)}ies`) return true;
    if (keyword.endsWith('e') && word === `${keyword.slice(0, -1)}ing`) return true;
    return false;
  }
  const rest = word.slice(keyword.length);
  return GERMAN_ENDINGS.includes(rest) || ENGLISH_ENDINGS.includes(rest);
}

/** Whether one message word matches one keyword word (exact, inflected, or inside a compound). */
export function wordMatches(word: string, keyword: string): boolean {
  if (inflected(word, keyword)) return true;
  if (keyword.length < MIN_COMPOUND_KEYWORD) return false;
  // Keyword first: "Kursangebot", "Kurszeiten" (with a linking s).
  if (word.startsWith(keyword)) {
    const rest = word.slice(keyword.length);
    if (rest.length >= MIN_COMPOUND_PART) return true;
  }
  // Keyword last, possibly inflected: "Yogakurs", "Yogakurse", "Tanzkursen".
  for (let i = MIN_COMPOUND_PART; i <= word.length - keyword.length; i++) {
    if (word.startsWith(keyword, i) && inflected(word.slice(i), keyword)) return true;
  }
  return false;
}

/** Whether the message contains the keyword (one or more words, in order) as words. */
export function matchesKeyword(message: string, keyword: string): boolean {
  const wanted = words(keyword);
  if (wanted.length === 0) return false;
  const have = words(message);
  for (let start = 0; start + wanted.length <= have.length; start++) {
    if (wanted.every((w, i) => wordMatches(have[start + i]!, w))) return true;
  }
  return false;
}

/** The first active keyword block one of whose keywords the message contains. */
export function keywordBlock(blocks: readonly FlowBlock[], message: string): FlowBlock | undefined {
  return blocks.find(
    (b) =>
      b.triggerMode === 'keyword' &&
      isShowable(b) &&
      (b.stepConfig.keywords ?? []).some((k) => matchesKeyword(message, k)),
  );
}

// ---------------------------------------------------------------------------------------------
// Choices and conditions.

/**
 * The item a message picks from a block: a structured choice naming the block and item, the
 * item's title typed as text, or its number (1-based, "2" or "2.").
 */
export function matchChoice(block: FlowBlock, message: FlowMessage): FlowBlock['items'][number] | undefined {
  const { choice } = message;
  if (choice && choice.blockId === block.id) {
    const item = block.items.find((i) => i.id === choice.itemId);
    if (item) return item;
  }
  const typed = foldWord(message.text.trim())
    .replace(/[.!?)]+$/u, '')
    .trim();
  if (typed === '') return undefined;
  const byTitle = block.items.find((i) => foldWord(i.title.trim()) === typed);
  if (byTitle) return byTitle;
  if (/^\d{1,2}$/.test(typed)) return block.items[Number(typed) - 1];
  return undefined;
}

function holds(condition: BlockCondition, answers: Readonly<Record<string, string>>): boolean {
  const answer = answers[condition.field];
  const given = answer === undefined ? undefined : foldWord(answer.trim());
  const expected = foldWord((condition.value ?? '').trim());
  switch (condition.operator) {
    case 'exists':
      return given !== undefined && given !== '';
    case 'equals':
      return given === expected;
    case 'not_equals':
      return given !== expected;
    case 'contains':
      return given !== undefined && given.includes(expected);
  }
}

/** All conditions hold (so none at all always do). */
export function conditionsHold(
  conditions: readonly BlockCondition[],
  answers: Readonly<Record<string, string>>,
): boolean {
  return conditions.every((c) => holds(c, answers));
}

// ---------------------------------------------------------------------------------------------
// Running steps.

interface Walk {
  flow: Flow;
  ordered: FlowStep[];
  blocks: Map<string, FlowBlock>;
  options: EngineOptions;
}

function walkOf(flow: Flow, options: EngineOptions): Walk {
  return {
    flow,
    ordered: orderedSteps(flow.steps),
    blocks: new Map(flow.blocks.filter((b) => b.isActive).map((b) => [b.id, b])),
    options,
  };
}

/** The next step by step_order, or `end` after the last one. */
function linearNext(walk: Walk, step: FlowStep): string {
  const index = walk.ordered.findIndex((s) => s.id === step.id);
  return walk.ordered[index + 1]?.id ?? END_TARGET;
}

/**
 * Where the flow goes after a block was answered without a jump: the default exit when the
 * conditions hold, else the next step when the block allows it (model.ts), else the end.
 */
function afterBlock(
  walk: Walk,
  step: FlowStep | undefined,
  block: FlowBlock,
  answers: FlowState['answers'],
): string {
  const next = continuationAfter(block);
  if (next.stops) return END_TARGET;
  if (next.exit !== undefined && conditionsHold(conditionsOf(block), answers)) return next.exit;
  if (next.linear && step) return linearNext(walk, step);
  return END_TARGET;
}

interface Outcome {
  texts: string[];
  block: FlowBlock | null;
  handover: boolean;
  state: FlowState;
}

/** Runs steps from `target` until one waits for the user, hands over, or the flow ends. */
function run(walk: Walk, target: string, base: FlowState, texts: string[]): Outcome {
  const idle = { stepId: null, blockId: null, awaiting: null } as const;
  // Each step runs at most once per turn, so a drawn cycle cannot loop.
  const seen = new Set<string>();
  let current = target;
  for (;;) {
    const step = walk.ordered.find((s) => s.id === current);
    if (current === END_TARGET || !step || seen.has(step.id)) {
      return { texts, block: null, handover: false, state: { ...base, ...idle, ended: true } };
    }
    seen.add(step.id);
    const block = step.blockId ? walk.blocks.get(step.blockId) : undefined;
    const content = step.content?.trim() ? step.content.trim() : null;
    switch (step.stepType) {
      case 'input':
        texts.push(content ?? step.label);
        return {
          texts,
          block: null,
          handover: false,
          state: { ...base, stepId: step.id, blockId: null, awaiting: 'input' },
        };
      case 'handover':
        texts.push(content ?? text(walk.options, 'handover'));
        return { texts, block: null, handover: true, state: { ...base, ...idle, ended: true } };
      default:
        // message and block steps: the text, then the block the step shows (if any).
        if (content) texts.push(content);
        if (isShowable(block)) {
          return {
            texts,
            block,
            handover: false,
            state: { ...base, stepId: step.id, blockId: block.id, awaiting: 'choice' },
          };
        }
        current = block ? afterBlock(walk, step, block, base.answers) : linearNext(walk, step);
    }
  }
}

function decision(walk: Walk, outcome: Outcome): FlowDecision {
  if (outcome.texts.length === 0 && !outcome.block && !outcome.handover) {
    return { kind: 'model', state: outcome.state };
  }
  const reply = outcome.texts.length > 0 ? outcome.texts.join('\n\n') : text(walk.options, 'choose');
  return { kind: 'answer', reply, block: outcome.block, handover: outcome.handover, state: outcome.state };
}

/** The step that shows a block (the first by step order), if any. */
function stepShowing(walk: Walk, blockId: string): FlowStep | undefined {
  return walk.ordered.find((s) => s.blockId === blockId);
}

/** Shows a block outside the walk of steps (keyword, or a tag the model wrote). */
function showBlock(walk: Walk, block: FlowBlock, state: FlowState): FlowState {
  return {
    ...state,
    stepId: stepShowing(walk, block.id)?.id ?? null,
    blockId: block.id,
    awaiting: 'choice',
  };
}

/** Applies a chosen item: records the answer, then its option action or the block's exit. */
function choose(walk: Walk, block: FlowBlock, itemId: string, state: FlowState): Outcome {
  const answers = { ...state.answers, [block.name]: itemId };
  const base: FlowState = { ...state, answers, stepId: null, blockId: null, awaiting: null };
  const step =
    state.blockId === block.id && state.stepId
      ? walk.ordered.find((s) => s.id === state.stepId)
      : stepShowing(walk, block.id);
  const action = block.optionActions[itemId];
  if (action?.action === 'handover') {
    return {
      texts: [text(walk.options, 'handover')],
      block: null,
      handover: true,
      state: { ...base, ended: true },
    };
  }
  if (action?.action === 'goto_step') return run(walk, action.step_id, { ...base, started: true }, []);
  const texts = action?.action === 'reply' ? [action.text] : [];
  const target = afterBlock(walk, step, block, answers);
  // A block outside the flow's steps, without a jump, leaves the flow as it was.
  if (!step && target === END_TARGET) return { texts, block: null, handover: false, state: base };
  return run(walk, target, { ...base, started: true }, texts);
}

/**
 * The decision before the model, in this order: a pending input takes the message as its
 * answer; a pending block takes a choice (structured, title or number); any active block takes
 * a structured choice; a keyword block fires; a flow not yet started runs from its first step;
 * otherwise the model answers.
 */
export function decideBefore(
  flow: Flow,
  state: FlowState,
  message: FlowMessage,
  options: EngineOptions,
): FlowDecision {
  const walk = walkOf(flow, options);

  if (state.awaiting === 'input' && state.stepId) {
    const step = walk.ordered.find((s) => s.id === state.stepId);
    if (step) {
      const field = step.fieldName?.trim() || step.label;
      const answers = { ...state.answers, [field]: message.text.trim().slice(0, MAX_ANSWER_CHARS) };
      const base: FlowState = { ...state, answers, stepId: null, blockId: null, awaiting: null };
      return decision(walk, run(walk, linearNext(walk, step), base, []));
    }
  }

  const pending = state.awaiting === 'choice' && state.blockId ? walk.blocks.get(state.blockId) : undefined;
  if (pending) {
    const item = matchChoice(pending, message);
    if (item) return decision(walk, choose(walk, pending, item.id, state));
  }
  if (message.choice) {
    const block = walk.blocks.get(message.choice.blockId);
    const item = block && matchChoice(block, { text: '', choice: message.choice });
    if (block && item) return decision(walk, choose(walk, block, item.id, state));
  }

  const keyword = keywordBlock(flow.blocks, message.text);
  if (keyword) {
    const step = stepShowing(walk, keyword.id);
    const intro = step?.content?.trim();
    return decision(walk, {
      texts: intro ? [intro] : [],
      block: keyword,
      handover: false,
      state: showBlock(walk, keyword, { ...state, started: true }),
    });
  }

  const first = walk.ordered[0];
  if (!state.started && first) return decision(walk, run(walk, first.id, { ...state, started: true }, []));

  return { kind: 'model', state };
}

const TAG = /\[(BUTTONS|LIST)\s*:\s*([^\]\r\n]{1,100})\]/gi;

/**
 * After the model: block tags (`[BUTTONS:Name]`, `[LIST:Name]`) are removed from the reply;
 * the first one naming an active block of the bot with items becomes the reply's block.
 */
export function decideAfter(
  flow: Flow,
  state: FlowState,
  reply: string,
  options: EngineOptions,
): { reply: string; block: FlowBlock | null; state: FlowState } {
  let block: FlowBlock | null = null;
  for (const match of reply.matchAll(TAG)) {
    const name = foldWord(match[2]!.trim());
    const found = flow.blocks.find((b) => isShowable(b) && foldWord(b.name) === name);
    if (found) {
      block = found;
      break;
    }
  }
  const cleaned = reply
    .replace(TAG, '')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/[ \t]{2,}/g, ' ')
    // Where a tag stood before punctuation: "um 9 Uhr [LIST:Zeiten]." → "um 9 Uhr."
    .replace(/[ \t]+([.,;:!?])/g, '$1')
    .trim();
  if (!block) return { reply: cleaned, block: null, state };
  const walk = walkOf(flow, options);
  return {
    reply: cleaned === '' ? text(options, 'choose') : cleaned,
    block,
    state: showBlock(walk, block, state),
  };
}
