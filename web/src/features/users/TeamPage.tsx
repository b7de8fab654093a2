import { Stack } from '@mantine/core';
import { useCan } from '../../app/session';
import { OwnPassword } from './OwnPassword';
import { OwnProfile } from './OwnProfile';
import { TeamList } from './TeamList';

/** Settings → Team: the tenant's users for managers, and everyone's own name, picture and password. */
export function TeamPage() {
  const canManage = useCan('user:manage');
  return (
    <Stack>
      {canManage && <TeamList />}
      <OwnProfile />
      <OwnPassword />
    </Stack>
  );
}
