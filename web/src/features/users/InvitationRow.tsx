import { Badge, Button, Group, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ConfirmButton } from '../../components/ConfirmButton';
import { notify } from '../../components/notify';
import { formatDateTime } from '../../format';
import { grantableRoles, type Role } from './team-rules';
import { useResendInvitation, useRevokeInvitation } from './queries';
import { type Invitation, type IssuedInvitation, issuedNotice } from './team-types';

export function InvitationRow({
  invitation,
  actorRole,
  onIssued,
  onRefused,
}: {
  invitation: Invitation;
  actorRole: Role;
  onIssued: (issued: IssuedInvitation) => void;
  onRefused: (error: unknown) => void;
}) {
  const { t, i18n } = useTranslation();
  const resend = useResendInvitation(invitation.id, {
    onMutate: () => onRefused(null),
    onError: onRefused,
    onSuccess: (issued) => {
      notify(issuedNotice(issued, t));
      onIssued(issued);
    },
  });
  const revoke = useRevokeInvitation(invitation.id, {
    onMutate: () => onRefused(null),
    onError: onRefused,
    onSuccess: () => {
      notify(t('team.invite.revoked', { email: invitation.email }));
    },
  });
  const editable = grantableRoles(actorRole).includes(invitation.role);
  return (
    <Table.Tr data-testid="invitation-row">
      <Table.Td>
        <Text size="sm">{invitation.email}</Text>
      </Table.Td>
      <Table.Td>
        <Badge color="gray">{t(`roles.${invitation.role}`)}</Badge>
      </Table.Td>
      <Table.Td>
        {invitation.expired ? (
          <Badge color="orange">{t('team.invite.expired')}</Badge>
        ) : (
          <Text size="sm">
            {t('team.invite.validUntil', { date: formatDateTime(invitation.expires_at, i18n.language) })}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        {editable && (
          <Group gap="xs" wrap="nowrap">
            <Button
              size="compact-xs"
              variant="light"
              loading={resend.isPending}
              aria-label={t('team.invite.resendOf', { email: invitation.email })}
              onClick={() => resend.mutate()}
            >
              {t('team.invite.resend')}
            </Button>
            <ConfirmButton
              aria-label={t('team.invite.revokeOf', { email: invitation.email })}
              title={t('team.invite.revoke')}
              text={t('team.invite.revokeConfirm', { email: invitation.email })}
              onConfirm={() => revoke.mutate()}
            >
              {t('team.invite.revoke')}
            </ConfirmButton>
          </Group>
        )}
      </Table.Td>
    </Table.Tr>
  );
}
