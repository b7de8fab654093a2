import { INVITATION_TEXT } from '@server/modules/auth/invitations-rules.js';
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_LENGTH, USER_RULE_TEXT } from '@server/modules/auth/users-rules.js';
import { ApiError } from '../../api/client';

export const ROLES = ['owner', 'admin', 'editor', 'viewer'] as const;
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

const RULE_KEYS: [string, string][] = [
  [USER_RULE_TEXT.lastOwner, 'team.refusals.lastOwner'],
  [USER_RULE_TEXT.selfDeactivate, 'team.refusals.selfDeactivate'],
  [USER_RULE_TEXT.ownerGrant, 'team.refusals.ownerGrant'],
  [USER_RULE_TEXT.ownerChange, 'team.refusals.ownerChange'],
  [USER_RULE_TEXT.noLongerManager, 'team.refusals.noLongerManager'],
  [INVITATION_TEXT.memberExists, 'team.refusals.memberExists'],
  [INVITATION_TEXT.pending, 'team.refusals.invitationPending'],
  [INVITATION_TEXT.mailFailed, 'team.refusals.mailFailed'],
  ["Field 'current_password' is not your current password", 'team.password.wrongCurrent'],
  ['The new password must differ from the current one', 'team.password.mustDiffer'],
];

/** The i18n key of a known team refusal (the API's texts are English), or null. */
export function teamRefusalKey(error: unknown): string | null {
  if (!(error instanceof ApiError)) return null;
  if (error.status === 429) return 'team.password.tooManyTries';
  return RULE_KEYS.find(([text]) => text === error.message)?.[1] ?? null;
}

/** The i18n key of why an invitation link cannot be used (acceptance page), or null. */
export function invitationRefusalKey(error: unknown): string | null {
  if (!(error instanceof ApiError)) return null;
  if (error.message === INVITATION_TEXT.addressTaken) return 'invitation.addressTaken';
  if (error.status === 410) return 'invitation.expired';
  if (error.status === 404) return 'invitation.unknown';
  return null;
}
