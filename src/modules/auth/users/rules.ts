import type { AppError } from '../../../http/errors.js';
import { conflict, forbidden } from '../../../http/errors.js';
import type { Role } from '../permissions.js';

/**
 * Who may do what to whom in a tenant's team, as pure decisions. Holding `user:manage` (owners
 * and admins) lets a user add members and change roles; on top of that:
 *  - only an owner grants the owner role, and only an owner changes or deactivates an owner;
 *  - nobody deactivates their own account (a slip would lock them out at once);
 *  - the tenant always keeps at least one active owner.
 */

export const PASSWORD_MIN_LENGTH = 8;
/** bcrypt reads only the first 72 bytes; a longer password would be silently cut short. */
export const PASSWORD_MAX_BYTES = 72;

export const USER_RULE_TEXT = {
  ownerGrant: 'Only an owner can grant the owner role',
  ownerChange: 'Only an owner can change or deactivate another owner',
  noLongerManager: 'Your role no longer allows managing users',
  selfDeactivate: 'You cannot deactivate your own account; another user with user:manage can',
  lastOwner:
    'The tenant needs at least one active owner: make another user owner before demoting or deactivating this one',
} as const;

const OWNER_GRANT = { code: 'owner_grant_refused', field: 'role' } as const;

export interface Member {
  id: string;
  role: Role;
  is_active: boolean;
}

export interface AccessChange {
  role?: Role;
  is_active?: boolean;
}

/** The refusal of creating a member with `role`, or undefined when the actor may. */
export function refuseCreation(actor: { role: Role }, role: Role): AppError | undefined {
  if (role === 'owner' && actor.role !== 'owner') return forbidden(USER_RULE_TEXT.ownerGrant, OWNER_GRANT);
  return undefined;
}

/**
 * The refusal of `change` to `target`, or undefined when it is allowed. `otherActiveOwners`
 * counts the tenant's active owners besides the target, read under lock.
 */
export function refuseChange(input: {
  actor: { id: string; role: Role };
  target: Member;
  change: AccessChange;
  otherActiveOwners: number;
}): AppError | undefined {
  const { actor, target, change, otherActiveOwners } = input;
  if (actor.role !== 'owner') {
    if (target.role === 'owner')
      return forbidden(USER_RULE_TEXT.ownerChange, { code: 'owner_change_refused' });
    if (change.role === 'owner') return forbidden(USER_RULE_TEXT.ownerGrant, OWNER_GRANT);
  }
  if (change.is_active === false && target.id === actor.id)
    return conflict(USER_RULE_TEXT.selfDeactivate, { code: 'self_deactivation', field: 'is_active' });
  const losesOwner =
    target.role === 'owner' &&
    target.is_active &&
    ((change.role !== undefined && change.role !== 'owner') || change.is_active === false);
  if (losesOwner && otherActiveOwners === 0)
    return conflict(USER_RULE_TEXT.lastOwner, { code: 'last_owner' });
  return undefined;
}

/** What is wrong with a new password, or undefined. Length in characters is checked by the schema. */
export function passwordProblem(password: string): string | undefined {
  if (Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES) {
    return `The password may be at most ${PASSWORD_MAX_BYTES} bytes long (fewer characters when it has accents or emoji)`;
  }
  return undefined;
}
