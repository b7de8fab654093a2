import { Button, Card, Group, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMe } from '../../app/session';
import { EmptyState, ErrorAlert, Loading } from '../../components/states';
import { type Role } from './team-rules';
import { useTeam } from './queries';
import { AcceptLink } from './AcceptLink';
import { InviteUser } from './InviteUser';
import { Invitations } from './Invitations';
import { type IssuedInvitation } from './team-types';
import { MembersTable } from './MembersTable';

export function TeamList() {
  const { t } = useTranslation();
  const me = useMe();
  const [opened, { open, close }] = useDisclosure();
  const [issued, setIssued] = useState<IssuedInvitation | null>(null);
  const users = useTeam();
  const actor = { id: me.user.id, role: me.user.role as Role };
  return (
    <Card withBorder>
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4">
          {t('team.title')}
        </Title>
        <Button size="xs" onClick={open}>
          {t('team.add')}
        </Button>
      </Group>
      <Text size="sm" mb="sm">
        {t('team.intro')}
      </Text>
      <InviteUser opened={opened} onClose={close} actorRole={actor.role} onIssued={setIssued} />
      {issued && <AcceptLink issued={issued} onDone={() => setIssued(null)} />}
      {users.isPending ? (
        <Loading />
      ) : users.error ? (
        <ErrorAlert error={users.error} onRetry={() => void users.refetch()} />
      ) : users.data.data.length <= 1 ? (
        <>
          <EmptyState title={t('team.aloneTitle')} text={t('team.aloneText')} />
          <MembersTable users={users.data.data} actor={actor} />
        </>
      ) : (
        <MembersTable users={users.data.data} actor={actor} />
      )}
      <Invitations actorRole={actor.role} onIssued={setIssued} />
    </Card>
  );
}
