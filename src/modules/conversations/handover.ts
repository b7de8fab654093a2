/**
 * The hand-over state machine (pure). A conversation is with the bot, waiting for a person,
 * with a person (assigned user) or closed; stored as the specification's `status` with the
 * assignee: active = bot, handed_over without assignee = waiting, handed_over with assignee =
 * with a person, ended = closed.
 *
 * `decide` tells whether an action is allowed in a state for an actor and what the conversation
 * becomes; the inbox service applies it under the row's lock. See docs/inbox.md.
 */
import type { Role } from '../auth/index.js';

export type HandoverState = 'bot' | 'waiting' | 'with_person' | 'closed';

/** Why the bot handed a conversation over (stored in `handover_reason`). */
export const HANDOVER_REASONS = [
  'no_answer',
  'flow_step',
  'flow_option',
  'customer_request',
  'model',
  // Taken over from the dashboard.
  'staff',
  // The escalation-triggered webhook of the tenant's own system.
  'api',
] as const;
export type HandoverReason = (typeof HANDOVER_REASONS)[number];

export type HandoverAction =
  /** The bot hands over (no answer, flow, customer request, model). */
  | 'bot_handover'
  /** A staff member takes a conversation away from the bot (it becomes theirs). */
  | 'take_over'
  /** A staff member takes a waiting conversation (or one held by a colleague: refused). */
  | 'claim'
  /** A staff member gives the conversation to a colleague (or to themselves). */
  | 'assign'
  | 'reply'
  | 'note'
  | 'give_back'
  | 'close';

export interface StoredState {
  status: 'active' | 'ended' | 'handed_over';
  assigned_user_id: string | null;
}

export function stateOf(row: StoredState): HandoverState {
  if (row.status === 'active') return 'bot';
  if (row.status === 'ended') return 'closed';
  return row.assigned_user_id ? 'with_person' : 'waiting';
}

/** The stored form of a state with its assignee. */
export function storedOf(state: HandoverState, assignee: string | null): StoredState {
  switch (state) {
    case 'bot':
      return { status: 'active', assigned_user_id: null };
    case 'closed':
      return { status: 'ended', assigned_user_id: null };
    case 'waiting':
      return { status: 'handed_over', assigned_user_id: null };
    case 'with_person':
      return { status: 'handed_over', assigned_user_id: assignee };
  }
}

/** Who acts: the bot, or a staff member with their role and id. */
export type Actor = { kind: 'bot' } | { kind: 'staff'; userId: string; role: Role };

/** Roles that may work in the inbox (answer customers). Viewers only read. */
export const INBOX_ROLES: ReadonlySet<Role> = new Set(['owner', 'admin', 'editor', 'agent']);
/** Roles that may take a conversation away from a colleague (assign, close, give back theirs). */
export const SUPERVISOR_ROLES: ReadonlySet<Role> = new Set(['owner', 'admin']);

export type Decision =
  | { ok: true; next: HandoverState; assignee: string | null; changed: boolean }
  | { ok: false; refusal: 'forbidden' | 'held_by_other' | 'closed' | 'not_handed_over' | 'unchanged' };

/**
 * What `action` by `actor` does to a conversation in `state` held by `holder` (the assignee;
 * null when none). `target` is the colleague of an assignment.
 */
export function decide(
  state: HandoverState,
  holder: string | null,
  action: HandoverAction,
  actor: Actor,
  target: string | null = null,
): Decision {
  if (actor.kind === 'bot') {
    if (action !== 'bot_handover') return { ok: false, refusal: 'forbidden' };
    if (state === 'bot') return { ok: true, next: 'waiting', assignee: null, changed: true };
    // Already with people or closed: the bot changes nothing.
    return { ok: false, refusal: state === 'closed' ? 'closed' : 'unchanged' };
  }
  if (!INBOX_ROLES.has(actor.role)) return { ok: false, refusal: 'forbidden' };
  const me = actor.userId;
  const supervisor = SUPERVISOR_ROLES.has(actor.role);
  const mine = holder === me;
  const heldByOther = state === 'with_person' && !mine;
  const keep = (next: HandoverState, assignee: string | null): Decision => ({
    ok: true,
    next,
    assignee,
    changed: next !== state || assignee !== holder,
  });
  switch (action) {
    case 'bot_handover':
      return { ok: false, refusal: 'forbidden' };
    case 'take_over':
      if (state === 'closed') return { ok: false, refusal: 'closed' };
      if (state === 'bot') return keep('with_person', me);
      if (heldByOther) return { ok: false, refusal: 'held_by_other' };
      return keep('with_person', me);
    case 'claim':
      if (state === 'closed') return { ok: false, refusal: 'closed' };
      if (state === 'bot') return { ok: false, refusal: 'not_handed_over' };
      if (heldByOther) return { ok: false, refusal: 'held_by_other' };
      return keep('with_person', me);
    case 'assign':
      if (state === 'closed') return { ok: false, refusal: 'closed' };
      if (state === 'bot') return { ok: false, refusal: 'not_handed_over' };
      if (heldByOther && !supervisor) return { ok: false, refusal: 'held_by_other' };
      if (!target) return keep('waiting', null);
      return keep('with_person', target);
    case 'reply':
      if (state === 'closed') return { ok: false, refusal: 'closed' };
      if (heldByOther) return { ok: false, refusal: 'held_by_other' };
      // Replying to a waiting conversation (or one the bot has) makes it the replier's.
      return keep('with_person', me);
    case 'note':
      // Notes are internal: anyone of the inbox may add one in any state.
      return { ok: true, next: state, assignee: holder, changed: false };
    case 'give_back':
      if (state === 'closed') return { ok: false, refusal: 'closed' };
      if (state === 'bot') return { ok: false, refusal: 'not_handed_over' };
      if (heldByOther && !supervisor) return { ok: false, refusal: 'held_by_other' };
      return keep('bot', null);
    case 'close':
      if (state === 'closed') return { ok: false, refusal: 'unchanged' };
      if (heldByOther && !supervisor) return { ok: false, refusal: 'held_by_other' };
      return keep('closed', null);
  }
}
