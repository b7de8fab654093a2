import { PASSWORD_MAX_BYTES, PASSWORD_MIN_LENGTH } from '@server/modules/auth/users/rules.js';
import { ApiError } from '../../api/client';

export const ROLES = ['owner', 'admin', 'editor', 'viewer', 'agent'] as const;
export type Role = (typeof ROLES)[number];

/** The roles a manager may hand out: only owners grant the owner role. */
export function grantableRoles(actorRole: Role): Role[] {
  return actorRole === 'owner' ? [...ROLES] : ROLES.filter((r) => r !== 'owner');
}

/** Whether the actor's controls for a member are shown at all (the API stays the authority). */
export function mayChange(actor: { id: string; role: Role }, target: { id: string; role: Role }): boolean {
  if (actor.role !== 'owner' && actor.role !== 'admin') return false;
  return actor.role === 'owner' || target.role !== 'owner';
}

/**
 * Which changes of a member the API will take from the actor: nobody deactivates themself, and
 * the last active owner keeps the owner role and stays active.
 */
export function allowedChanges(
  actor: { id: string; role: Role },
  target: { id: string; role: Role; is_active: boolean },
  activeOwners: number,
): { role: boolean; deactivate: boolean } {
  if (!mayChange(actor, target)) return { role: false, deactivate: false };
  const lastOwner = target.role === 'owner' && target.is_active && activeOwners <= 1;
  return { role: !lastOwner, deactivate: !lastOwner && target.id !== actor.id };
}

/** A password the API will take: 8 to 72 characters and at most 72 bytes in UTF-8. */
export function passwordProblemKey(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return 'team.password.tooShort';
  if (new TextEncoder().encode(password).length > PASSWORD_MAX_BYTES) return 'team.password.tooLong';
  return null;
}

/** The team's texts of refusals, by the error body's code. */
const RULE_KEYS: Record<string, string> = {
  last_owner: 'team.refusals.lastOwner',
  self_deactivation: 'team.refusals.selfDeactivate',
  owner_grant_refused: 'team.refusals.ownerGrant',
  owner_change_refused: 'team.refusals.ownerChange',
  manager_role_lost: 'team.refusals.noLongerManager',
  member_exists: 'team.refusals.memberExists',
  invitation_pending: 'team.refusals.invitationPending',
  invitation_mail_failed: 'team.refusals.mailFailed',
  password_wrong: 'team.password.wrongCurrent',
  password_unchanged: 'team.password.mustDiffer',
};

/** The i18n key of a known team refusal (by its code), or null. */
export function teamRefusalKey(error: unknown): string | null {
  if (!(error instanceof ApiError)) return null;
  if (error.status === 429) return 'team.password.tooManyTries';
  return RULE_KEYS[error.code] ?? null;
}

/** The i18n key of why an invitation link cannot be used (acceptance page), or null. */
export function invitationRefusalKey(error: unknown): string | null {
  if (!(error instanceof ApiError)) return null;
  if (error.code === 'address_taken') return 'invitation.addressTaken';
  if (error.status === 410) return 'invitation.expired';
  if (error.status === 404) return 'invitation.unknown';
  return null;
}
