/**
 * Team invitations as pure decisions. An owner or admin invites an e-mail address with a role;
 * the answer never depends on whether the address has an account with another tenant, so the
 * inviter learns nothing about other tenants. The person proves control of the address by the
 * link and sets their own password; an address that already has an account (logins are unique
 * across all tenants) cannot accept, and only the link holder is told why.
 */

/** How long an invitation link stays valid; resending starts a new period with a new link. */
export const INVITATION_TTL_HOURS = 7 * 24;

export const INVITATION_TEXT = {
  memberExists: 'This address already belongs to a member of your team',
  pending: 'An invitation to this address is already pending; resend or revoke it',
  unknown: 'This invitation link is not valid (it was revoked, replaced by a newer link, or already used)',
  expired: 'This invitation has expired; ask the person who invited you for a new one',
  addressTaken:
    'This e-mail address already has a Parley account, and one address can belong to one team only. Sign in with it, or ask for an invitation to another address',
  mailFailed: 'The invitation is saved, but the e-mail could not be sent; resend it later',
} as const;

export type InvitationState = 'valid' | 'expired';

export function invitationState(expiresAt: Date, now: Date): InvitationState {
  return expiresAt.getTime() > now.getTime() ? 'valid' : 'expired';
}

export function invitationExpiry(now: Date): Date {
  return new Date(now.getTime() + INVITATION_TTL_HOURS * 3600_000);
}

/** The link the invited person opens: the token travels in the fragment, which browsers never send to a server or in a Referer. */
export function acceptUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/invitation#${token}`;
}
