import { Stack } from '@mantine/core';
import { useCan } from '../../app/session';
import { OwnPassword } from './OwnPassword';
import { TeamList } from './TeamList';

/** Settings → Team: the tenant's users for managers, and everyone's own password. */
export function TeamPage() {
  const canManage = useCan('user:manage');
  return (
    <Stack>
      {canManage && <TeamList />}
      <OwnPassword />
    </Stack>
  );
}
