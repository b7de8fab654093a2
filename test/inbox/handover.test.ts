import { describe, expect, it } from 'vitest';
import {
  decide,
  stateOf,
  storedOf,
  type Actor,
  type HandoverAction,
  type HandoverState,
} from '../../src/modules/conversations/handover.js';

const ME = 'me';
const OTHER = 'other';
const bot: Actor = { kind: 'bot' };
const agent: Actor = { kind: 'staff', userId: ME, role: 'agent' };
const owner: Actor = { kind: 'staff', userId: ME, role: 'owner' };
const editor: Actor = { kind: 'staff', userId: ME, role: 'editor' };
const viewer: Actor = { kind: 'staff', userId: ME, role: 'viewer' };

type Case = [HandoverState, string | null, HandoverAction, Actor, string | null, string];
// state, holder, action, actor, target → next state:assignee, or the refusal
const CASES: Case[] = [
  ['bot', null, 'bot_handover', bot, null, 'waiting:null'],
  ['waiting', null, 'bot_handover', bot, null, 'unchanged'],
  ['with_person', OTHER, 'bot_handover', bot, null, 'unchanged'],
  ['closed', null, 'bot_handover', bot, null, 'closed'],
  ['waiting', null, 'reply', bot, null, 'forbidden'],
  ['bot', null, 'take_over', agent, null, 'with_person:me'],
  ['waiting', null, 'take_over', agent, null, 'with_person:me'],
  ['with_person', OTHER, 'take_over', agent, null, 'held_by_other'],
  ['closed', null, 'take_over', agent, null, 'closed'],
  ['waiting', null, 'claim', agent, null, 'with_person:me'],
  ['waiting', null, 'claim', editor, null, 'with_person:me'],
  ['waiting', null, 'claim', viewer, null, 'forbidden'],
  ['with_person', ME, 'claim', agent, null, 'with_person:me'],
  ['with_person', OTHER, 'claim', agent, null, 'held_by_other'],
  ['with_person', OTHER, 'claim', owner, null, 'held_by_other'],
  ['bot', null, 'claim', agent, null, 'not_handed_over'],
  ['closed', null, 'claim', agent, null, 'closed'],
  ['waiting', null, 'assign', agent, OTHER, 'with_person:other'],
  ['with_person', ME, 'assign', agent, OTHER, 'with_person:other'],
  ['with_person', OTHER, 'assign', agent, ME, 'held_by_other'],
  ['with_person', OTHER, 'assign', owner, ME, 'with_person:me'],
  ['with_person', ME, 'assign', agent, null, 'waiting:null'],
  ['bot', null, 'assign', owner, OTHER, 'not_handed_over'],
  ['waiting', null, 'reply', agent, null, 'with_person:me'],
  ['bot', null, 'reply', agent, null, 'with_person:me'],
  ['with_person', ME, 'reply', agent, null, 'with_person:me'],
  ['with_person', OTHER, 'reply', agent, null, 'held_by_other'],
  ['with_person', OTHER, 'reply', owner, null, 'held_by_other'],
  ['closed', null, 'reply', agent, null, 'closed'],
  ['with_person', OTHER, 'note', agent, null, 'with_person:other'],
  ['closed', null, 'note', agent, null, 'closed:null'],
  ['bot', null, 'note', viewer, null, 'forbidden'],
  ['with_person', ME, 'give_back', agent, null, 'bot:null'],
  ['waiting', null, 'give_back', agent, null, 'bot:null'],
  ['with_person', OTHER, 'give_back', agent, null, 'held_by_other'],
  ['with_person', OTHER, 'give_back', owner, null, 'bot:null'],
  ['bot', null, 'give_back', agent, null, 'not_handed_over'],
  ['with_person', ME, 'close', agent, null, 'closed:null'],
  ['bot', null, 'close', agent, null, 'closed:null'],
  ['with_person', OTHER, 'close', agent, null, 'held_by_other'],
  ['with_person', OTHER, 'close', owner, null, 'closed:null'],
  ['closed', null, 'close', owner, null, 'unchanged'],
];

describe('hand-over state machine', () => {
  it.each(CASES)(
    '%s held by %s: %s by %j (target %s) → %s',
    (state, holder, action, actor, target, expected) => {
      const decision = decide(state, holder, action, actor, target);
      expect(decision.ok ? `${decision.next}:${decision.assignee}` : decision.refusal).toBe(expected);
    },
  );

  it('maps the stored status and assignee to states and back', () => {
    expect(stateOf({ status: 'active', assigned_user_id: null })).toBe('bot');
    expect(stateOf({ status: 'handed_over', assigned_user_id: null })).toBe('waiting');
    expect(stateOf({ status: 'handed_over', assigned_user_id: ME })).toBe('with_person');
    expect(stateOf({ status: 'ended', assigned_user_id: null })).toBe('closed');
    for (const state of ['bot', 'waiting', 'with_person', 'closed'] as const) {
      expect(stateOf(storedOf(state, ME))).toBe(state);
    }
  });
});
