import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/client';
import { allowedChanges, invitationRefusalKey, teamRefusalKey } from './team-rules';
import de from '../../i18n/de.json';
import en from '../../i18n/en.json';

function lookup(messages: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], messages);
}

describe('invitation refusals', () => {
  it('translates the refusals of inviting, in German and English', () => {
    const cases: Array<[ApiError, string]> = [
      [new ApiError(409, 'member_exists', 'x', {}), 'team.refusals.memberExists'],
      [new ApiError(409, 'invitation_pending', 'x', {}), 'team.refusals.invitationPending'],
      [new ApiError(503, 'invitation_mail_failed', 'x', {}), 'team.refusals.mailFailed'],
    ];
    for (const [error, key] of cases) {
      expect(teamRefusalKey(error)).toBe(key);
      expect(typeof lookup(de, key), key).toBe('string');
      expect(typeof lookup(en, key), key).toBe('string');
    }
  });

  it('tells the link holder why a link cannot be used', () => {
    const cases: Array<[unknown, string | null]> = [
      [new ApiError(404, 'invitation_unknown', 'x', {}), 'invitation.unknown'],
      [new ApiError(410, 'invitation_expired', 'x', {}), 'invitation.expired'],
      [new ApiError(409, 'address_taken', 'x', {}), 'invitation.addressTaken'],
      [new ApiError(400, 'validation_error', 'something else', {}), null],
      [new Error('network'), null],
    ];
    for (const [error, key] of cases) {
      expect(invitationRefusalKey(error)).toBe(key);
      if (key) {
        expect(typeof lookup(de, key), key).toBe('string');
        expect(typeof lookup(en, key), key).toBe('string');
      }
    }
  });
});

describe('changes offered on the team page', () => {
  const owner = { id: 'o1', role: 'owner' as const };
  const admin = { id: 'a1', role: 'admin' as const };

  it('never offers deactivating yourself', () => {
    expect(allowedChanges(admin, { ...admin, is_active: true }, 1)).toEqual({
      role: true,
      deactivate: false,
    });
    expect(allowedChanges(owner, { ...owner, is_active: true }, 2)).toEqual({
      role: true,
      deactivate: false,
    });
  });

  it('keeps the last active owner an active owner', () => {
    expect(allowedChanges(owner, { ...owner, is_active: true }, 1)).toEqual({
      role: false,
      deactivate: false,
    });
    expect(allowedChanges(owner, { id: 'o2', role: 'owner', is_active: true }, 2)).toEqual({
      role: true,
      deactivate: true,
    });
  });

  it('offers an admin nothing on owners, everything on others', () => {
    expect(allowedChanges(admin, { id: 'o2', role: 'owner', is_active: true }, 2)).toEqual({
      role: false,
      deactivate: false,
    });
    expect(allowedChanges(admin, { id: 'e1', role: 'editor', is_active: true }, 1)).toEqual({
      role: true,
      deactivate: true,
    });
  });
});
