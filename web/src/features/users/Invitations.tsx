import { Stack, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/states';
import { type Role } from './team-rules';
import { useInvitations } from './queries';
import { DataTable } from '../../components/DataTable';
import { TeamError } from './TeamError';
import { InvitationRow } from './InvitationRow';
import { type IssuedInvitation } from './team-types';

/** Invitations not yet accepted: resend (a new link) or revoke. */
export function Invitations({
  actorRole,
  onIssued,
}: {
  actorRole: Role;
  onIssued: (issued: IssuedInvitation) => void;
}) {
  const { t } = useTranslation();
  const [refusal, setRefusal] = useState<unknown>(null);
  const invitations = useInvitations();
  if (invitations.isPending) return null;
  if (invitations.error)
    return <ErrorAlert error={invitations.error} onRetry={() => void invitations.refetch()} />;
  if (invitations.data.data.length === 0) return null;
  return (
    <Stack gap="xs" mt="md">
      <Title order={3} size="h5">
        {t('team.invite.pending')}
      </Title>
      {refusal !== null && <TeamError error={refusal} />}
      <DataTable
        columns={[t('team.email'), t('team.role'), t('team.state'), t('common.actions')]}
        minWidth={560}
      >
        {invitations.data.data.map((invitation) => (
          <InvitationRow
            key={invitation.id}
            invitation={invitation}
            actorRole={actorRole}
            onIssued={onIssued}
            onRefused={setRefusal}
          />
        ))}
      </DataTable>
    </Stack>
  );
}
