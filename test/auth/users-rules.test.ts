import { describe, expect, it } from 'vitest';
import type { Role } from '../../src/modules/auth/permissions.js';
import {
  USER_RULE_TEXT,
  passwordProblem,
  refuseChange,
  refuseCreation,
  type AccessChange,
} from '../../src/modules/auth/users/rules.js';

const ACTOR = 'a0000000-0000-4000-8000-000000000001';
const TARGET = 'a0000000-0000-4000-8000-000000000002';

describe('team rules', () => {
  it('lets only owners create owners', () => {
    expect(refuseCreation({ role: 'owner' }, 'owner')).toBeUndefined();
    expect(refuseCreation({ role: 'admin' }, 'owner')).toMatchObject({
      statusCode: 403,
      message: USER_RULE_TEXT.ownerGrant,
    });
    for (const role of ['admin', 'editor', 'viewer'] as const) {
      expect(refuseCreation({ role: 'admin' }, role)).toBeUndefined();
    }
  });

  const cases: Array<{
    name: string;
    actor: Role;
    target: { role: Role; is_active?: boolean; self?: boolean };
    change: AccessChange;
    others: number;
    refused?: { status: number; text: string };
  }> = [
    {
      name: 'owner promotes an editor to owner',
      actor: 'owner',
      target: { role: 'editor' },
      change: { role: 'owner' },
      others: 1,
    },
    {
      name: 'owner demotes another owner while a third remains',
      actor: 'owner',
      target: { role: 'owner' },
      change: { role: 'admin' },
      others: 1,
    },
    {
      name: 'owner deactivates another owner while one remains',
      actor: 'owner',
      target: { role: 'owner' },
      change: { is_active: false },
      others: 1,
    },
    {
      name: 'admin demotes an editor',
      actor: 'admin',
      target: { role: 'editor' },
      change: { role: 'viewer' },
      others: 1,
    },
    {
      name: 'admin deactivates an admin',
      actor: 'admin',
      target: { role: 'admin' },
      change: { is_active: false },
      others: 1,
    },
    {
      name: 'owner keeps the owner role (no-op)',
      actor: 'owner',
      target: { role: 'owner', self: true },
      change: { role: 'owner' },
      others: 0,
    },
    {
      name: 'owner reactivates an inactive owner',
      actor: 'owner',
      target: { role: 'owner', is_active: false },
      change: { is_active: true },
      others: 1,
    },
    {
      name: 'an inactive owner may be demoted even when it is the only other',
      actor: 'owner',
      target: { role: 'owner', is_active: false },
      change: { role: 'viewer' },
      others: 0,
    },
    {
      name: 'admin grants owner',
      actor: 'admin',
      target: { role: 'editor' },
      change: { role: 'owner' },
      others: 1,
      refused: { status: 403, text: USER_RULE_TEXT.ownerGrant },
    },
    {
      name: 'admin changes an owner',
      actor: 'admin',
      target: { role: 'owner' },
      change: { role: 'admin' },
      others: 1,
      refused: { status: 403, text: USER_RULE_TEXT.ownerChange },
    },
    {
      name: 'admin deactivates an owner',
      actor: 'admin',
      target: { role: 'owner' },
      change: { is_active: false },
      others: 1,
      refused: { status: 403, text: USER_RULE_TEXT.ownerChange },
    },
    {
      name: 'last owner demotes themselves',
      actor: 'owner',
      target: { role: 'owner', self: true },
      change: { role: 'admin' },
      others: 0,
      refused: { status: 409, text: USER_RULE_TEXT.lastOwner },
    },
    {
      name: 'the last active owner is deactivated',
      actor: 'owner',
      target: { role: 'owner' },
      change: { is_active: false },
      others: 0,
      refused: { status: 409, text: USER_RULE_TEXT.lastOwner },
    },
    {
      name: 'anyone deactivates themselves',
      actor: 'admin',
      target: { role: 'admin', self: true },
      change: { is_active: false },
      others: 2,
      refused: { status: 409, text: USER_RULE_TEXT.selfDeactivate },
    },
  ];

  for (const c of cases) {
    it(`${c.refused ? 'refuses' : 'allows'}: ${c.name}`, () => {
      const refusal = refuseChange({
        actor: { id: ACTOR, role: c.actor },
        target: {
          id: c.target.self ? ACTOR : TARGET,
          role: c.target.role,
          is_active: c.target.is_active ?? true,
        },
        change: c.change,
        otherActiveOwners: c.others,
      });
      if (!c.refused) expect(refusal).toBeUndefined();
      else expect(refusal).toMatchObject({ statusCode: c.refused.status, message: c.refused.text });
    });
  }

  it('checks the bcrypt limit of 72 bytes, not characters', () => {
    expect(passwordProblem('a'.repeat(72))).toBeUndefined();
    expect(passwordProblem('ä'.repeat(36))).toBeUndefined();
    expect(passwordProblem('ä'.repeat(37))).toContain('72 bytes');
  });
});
