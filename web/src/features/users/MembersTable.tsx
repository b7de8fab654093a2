import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Role } from './team-rules';
import { DataTable } from '../../components/DataTable';
import { TeamError } from './TeamError';
import { MemberRow } from './MemberRow';
import { type TeamUser } from './team-types';

export function MembersTable({ users, actor }: { users: TeamUser[]; actor: { id: string; role: Role } }) {
  const { t } = useTranslation();
  // A refused change is shown above the table, where it has the room to be read.
  const [refusal, setRefusal] = useState<unknown>(null);
  if (users.length === 0) return null;
  const activeOwners = users.filter((u) => u.role === 'owner' && u.is_active).length;
  return (
    <>
      {refusal !== null && <TeamError error={refusal} />}
      <DataTable
        columns={[
          t('team.member'),
          t('team.role'),
          t('team.state'),
          t('team.lastLogin'),
          t('common.actions'),
        ]}
        minWidth={640}
        mt="sm"
      >
        {users.map((member) => (
          <MemberRow
            key={member.id}
            member={member}
            actor={actor}
            activeOwners={activeOwners}
            onRefused={setRefusal}
          />
        ))}
      </DataTable>
    </>
  );
}
