import type { Ok } from '../../api/types';

export type TeamUser = Ok<'/api/users', 'get'>['data'][number];

export type Invitation = Ok<'/api/invitations', 'get'>['data'][number];

export type IssuedInvitation = Ok<'/api/invitations', 'post'>;

export function issuedNotice(
  issued: IssuedInvitation,
  t: (key: string, options?: Record<string, unknown>) => string,
) {
  return issued.delivery === 'email'
    ? t('team.invite.mailed', { email: issued.email })
    : t('team.invite.created', { email: issued.email });
}
