import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Modal,
  PasswordInput,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, call } from '../../api/client';
import type { Ok } from '../../api/types';
import { useCan, useMe } from '../../app/session';
import { confirmAction } from '../../components/confirm';
import { notify } from '../../components/notify';
import { EmptyState, ErrorAlert, Loading } from '../../components/states';
import { formatDateTime } from '../../format';
import { grantableRoles, mayChange, passwordProblemKey, teamRefusalKey, type Role } from './team-rules';

type TeamUser = Ok<'/api/users', 'get'>['data'][number];
const TEAM_KEY = ['team'] as const;

/** An API refusal in the user's language when it is a known team rule, else the API's sentence. */
function TeamError({ error }: { error: unknown }) {
  const { t } = useTranslation();
  const key = teamRefusalKey(error);
  if (!key) return <ErrorAlert error={error} />;
  return (
    <Alert color="red" title={t('team.refusedTitle')} role="alert">
      {t(key)}
    </Alert>
  );
}

function OwnPassword() {
  const { t } = useTranslation();
  const form = useForm({
    initialValues: { current: '', next: '', repeat: '' },
    validate: {
      current: (v) => (v ? null : t('team.password.currentRequired')),
      next: (v) => {
        const key = passwordProblemKey(v);
        return key ? t(key) : null;
      },
      repeat: (v, values) => (v === values.next ? null : t('team.password.mismatch')),
    },
  });
  const change = useMutation({
    mutationFn: (values: typeof form.values) =>
      call(
        api.POST('/api/me/password', {
          body: { current_password: values.current, new_password: values.next },
        }),
      ),
    onSuccess: () => {
      form.reset();
      notify(t('team.password.changed'));
    },
  });
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        {t('team.password.title')}
      </Title>
      <Text size="sm" mb="sm">
        {t('team.password.intro')}
      </Text>
      <form onSubmit={form.onSubmit((values) => change.mutate(values))} noValidate>
        <Stack maw={420}>
          <PasswordInput
            label={t('team.password.current')}
            autoComplete="current-password"
            required
            {...form.getInputProps('current')}
          />
          <PasswordInput
            label={t('team.password.new')}
            description={t('team.password.rules')}
            autoComplete="new-password"
            required
            {...form.getInputProps('next')}
          />
          <PasswordInput
            label={t('team.password.repeat')}
            autoComplete="new-password"
            required
            {...form.getInputProps('repeat')}
          />
          <Group>
            <Button type="submit" loading={change.isPending}>
              {t('team.password.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

function AddUser({ opened, onClose, actorRole }: { opened: boolean; onClose: () => void; actorRole: Role }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const form = useForm({
    initialValues: { email: '', first_name: '', last_name: '', role: 'editor', password: '' },
    validate: {
      email: (v) => (/^\S+@\S+\.\S+$/.test(v.trim()) ? null : t('team.emailInvalid')),
      password: (v) => {
        const key = passwordProblemKey(v);
        return key ? t(key) : null;
      },
    },
  });
  const create = useMutation({
    mutationFn: (values: typeof form.values) =>
      call(
        api.POST('/api/users', {
          body: {
            email: values.email.trim(),
            password: values.password,
            role: values.role as Role,
            ...(values.first_name.trim() ? { first_name: values.first_name.trim() } : {}),
            ...(values.last_name.trim() ? { last_name: values.last_name.trim() } : {}),
          },
        }),
      ),
    onSuccess: (user) => {
      void queryClient.invalidateQueries({ queryKey: TEAM_KEY });
      notify(t('team.added', { email: user.email }));
      form.reset();
      onClose();
    },
  });
  return (
    <Modal opened={opened} onClose={onClose} title={t('team.add')}>
      <form onSubmit={form.onSubmit((values) => create.mutate(values))} noValidate>
        <Stack>
          {create.error && <TeamError error={create.error} />}
          <TextInput
            label={t('team.email')}
            type="email"
            required
            data-autofocus
            {...form.getInputProps('email')}
          />
          <Group grow>
            <TextInput label={t('team.firstName')} {...form.getInputProps('first_name')} />
            <TextInput label={t('team.lastName')} {...form.getInputProps('last_name')} />
          </Group>
          <Select
            label={t('team.role')}
            allowDeselect={false}
            data={grantableRoles(actorRole).map((r) => ({ value: r, label: t(`roles.${r}`) }))}
            {...form.getInputProps('role')}
          />
          <PasswordInput
            label={t('team.initialPassword')}
            description={t('team.initialPasswordHelp')}
            autoComplete="new-password"
            required
            {...form.getInputProps('password')}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={create.isPending}>
              {t('team.addSubmit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function MemberRow({
  member,
  actor,
  onRefused,
}: {
  member: TeamUser;
  actor: { id: string; role: Role };
  onRefused: (error: unknown) => void;
}) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const name = [member.first_name, member.last_name].filter(Boolean).join(' ');
  const label = name || member.email;
  const change = useMutation({
    mutationFn: (body: { role?: Role; is_active?: boolean }) =>
      call(api.PATCH('/api/users/{id}', { params: { path: { id: member.id } }, body })),
    onMutate: () => onRefused(null),
    onError: onRefused,
    onSuccess: (updated, body) => {
      void queryClient.invalidateQueries({ queryKey: TEAM_KEY });
      if (updated.id === actor.id) void queryClient.invalidateQueries({ queryKey: ['me'] });
      notify(
        body.role
          ? t('team.roleChanged', { name: label, role: t(`roles.${body.role}`) })
          : body.is_active
            ? t('team.reactivated', { name: label })
            : t('team.deactivated', { name: label }),
      );
    },
  });
  const editable = mayChange(actor, member);
  const roles = grantableRoles(actor.role);
  return (
    <Table.Tr data-testid="team-row">
      <Table.Td>
        <Text size="sm" fw={500}>
          {label}
          {member.id === actor.id && ` (${t('team.you')})`}
        </Text>
        {name && (
          <Text size="xs" c="dimmed">
            {member.email}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        {editable ? (
          <Select
            size="xs"
            w={150}
            aria-label={t('team.roleOf', { name: label })}
            allowDeselect={false}
            value={member.role}
            data={(roles.includes(member.role) ? roles : [member.role, ...roles]).map((r) => ({
              value: r,
              label: t(`roles.${r}`),
            }))}
            onChange={(value) => value && value !== member.role && change.mutate({ role: value as Role })}
          />
        ) : (
          <Badge color="gray">{t(`roles.${member.role}`)}</Badge>
        )}
      </Table.Td>
      <Table.Td>
        <Badge color={member.is_active ? 'green' : 'gray'}>
          {member.is_active ? t('team.active') : t('team.inactive')}
        </Badge>
      </Table.Td>
      <Table.Td>
        {member.last_login_at ? formatDateTime(member.last_login_at, i18n.language) : t('team.never')}
      </Table.Td>
      <Table.Td>
        {editable &&
          (member.is_active ? (
            <Button
              size="compact-xs"
              color="red"
              variant="subtle"
              aria-label={t('team.deactivateOf', { name: label })}
              onClick={() =>
                confirmAction({
                  title: t('team.deactivate'),
                  text: t('team.deactivateConfirm', { name: label }),
                  confirm: t('team.deactivate'),
                  onConfirm: () => change.mutate({ is_active: false }),
                })
              }
            >
              {t('team.deactivate')}
            </Button>
          ) : (
            <Button
              size="compact-xs"
              variant="light"
              aria-label={t('team.reactivateOf', { name: label })}
              onClick={() => change.mutate({ is_active: true })}
            >
              {t('team.reactivate')}
            </Button>
          ))}
      </Table.Td>
    </Table.Tr>
  );
}

function TeamList() {
  const { t } = useTranslation();
  const me = useMe();
  const [opened, { open, close }] = useDisclosure();
  const users = useQuery({
    queryKey: TEAM_KEY,
    queryFn: () => call(api.GET('/api/users', { params: { query: { limit: 100 } } })),
  });
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
      <AddUser opened={opened} onClose={close} actorRole={actor.role} />
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
    </Card>
  );
}

function MembersTable({ users, actor }: { users: TeamUser[]; actor: { id: string; role: Role } }) {
  const { t } = useTranslation();
  // A refused change is shown above the table, where it has the room to be read.
  const [refusal, setRefusal] = useState<unknown>(null);
  if (users.length === 0) return null;
  return (
    <>
      {refusal !== null && <TeamError error={refusal} />}
      <Table.ScrollContainer minWidth={640} mt="sm">
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('team.member')}</Table.Th>
              <Table.Th>{t('team.role')}</Table.Th>
              <Table.Th>{t('team.state')}</Table.Th>
              <Table.Th>{t('team.lastLogin')}</Table.Th>
              <Table.Th>{t('common.actions')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {users.map((member) => (
              <MemberRow key={member.id} member={member} actor={actor} onRefused={setRefusal} />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </>
  );
}

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
