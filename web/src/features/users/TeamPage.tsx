import {
  Alert,
  Badge,
  Button,
  Card,
  Code,
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
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CopyAndDone } from '../../components/CopyAndDone';
import type { Ok } from '../../api/types';
import { useCan, useMe } from '../../app/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { notify } from '../../components/notify';
import { useFormUnsavedChanges, useUnsavedChanges } from '../../components/unsaved-changes';
import { EmptyState, ErrorAlert, Loading } from '../../components/states';
import { formatDateTime } from '../../format';
import { allowedChanges, grantableRoles, passwordProblemKey, teamRefusalKey, type Role } from './team-rules';
import {
  useChangeOwnPassword,
  useChangeUser,
  useCreateInvitation,
  useInvitations,
  useResendInvitation,
  useRevokeInvitation,
  useTeam,
} from './queries';
import { DataTable } from '../../components/DataTable';
import { FormActions } from '../../components/FormActions';

type TeamUser = Ok<'/api/users', 'get'>['data'][number];

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
  const change = useChangeOwnPassword({
    onSuccess: () => {
      form.reset();
      notify(t('team.password.changed'));
    },
  });
  useFormUnsavedChanges(form, (values) => change.mutateAsync(values));
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

type Invitation = Ok<'/api/invitations', 'get'>['data'][number];
type IssuedInvitation = Ok<'/api/invitations', 'post'>;

/** The accept link of an invitation when no e-mail is sent: the inviter passes it on. */
function AcceptLink({ issued, onDone }: { issued: IssuedInvitation; onDone: () => void }) {
  const { t } = useTranslation();
  if (!issued.accept_url) return null;
  return (
    <Alert color="blue" title={t('team.invite.linkTitle', { email: issued.email })} role="status">
      <Stack gap="sm">
        <Text size="sm">{t('team.invite.linkText')}</Text>
        <Code block data-testid="accept-link" style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
          {issued.accept_url}
        </Code>
        <CopyAndDone value={issued.accept_url} doneLabel={t('team.invite.linkDone')} onDone={onDone} />
      </Stack>
    </Alert>
  );
}

function issuedNotice(
  issued: IssuedInvitation,
  t: (key: string, options?: Record<string, unknown>) => string,
) {
  return issued.delivery === 'email'
    ? t('team.invite.mailed', { email: issued.email })
    : t('team.invite.created', { email: issued.email });
}

function InviteUser({
  opened,
  onClose,
  actorRole,
  onIssued,
}: {
  opened: boolean;
  onClose: () => void;
  actorRole: Role;
  onIssued: (issued: IssuedInvitation) => void;
}) {
  const { t } = useTranslation();
  const form = useForm({
    initialValues: { email: '', role: 'editor' },
    validate: {
      email: (v) => (/^\S+@\S+\.\S+$/.test(v.trim()) ? null : t('team.emailInvalid')),
    },
  });
  const create = useCreateInvitation({
    onSuccess: (issued) => {
      notify(issuedNotice(issued, t));
      form.reset();
      onIssued(issued);
      onClose();
    },
  });
  // An issued invitation may show its link here once, so leaving only offers to discard.
  useUnsavedChanges({ dirty: () => opened && form.isDirty(), discard: () => form.reset() });
  return (
    <Modal opened={opened} onClose={onClose} title={t('team.add')}>
      <form
        onSubmit={form.onSubmit((values) =>
          create.mutate({ email: values.email.trim(), role: values.role as Role }),
        )}
        noValidate
      >
        <Stack>
          {create.error && <TeamError error={create.error} />}
          <Text size="sm">{t('team.invite.intro')}</Text>
          <TextInput
            label={t('team.email')}
            type="email"
            required
            data-autofocus
            {...form.getInputProps('email')}
          />
          <Select
            label={t('team.role')}
            allowDeselect={false}
            data={grantableRoles(actorRole).map((r) => ({ value: r, label: t(`roles.${r}`) }))}
            {...form.getInputProps('role')}
          />
          <FormActions onCancel={onClose} pending={create.isPending} submit={t('team.addSubmit')} />
        </Stack>
      </form>
    </Modal>
  );
}

function InvitationRow({
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

/** Invitations not yet accepted: resend (a new link) or revoke. */
function Invitations({
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
        columns={[
          { label: t('team.email') },
          { label: t('team.role') },
          { label: t('team.state') },
          { label: t('common.actions') },
        ]}
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

function MemberRow({
  member,
  actor,
  activeOwners,
  onRefused,
}: {
  member: TeamUser;
  actor: { id: string; role: Role };
  activeOwners: number;
  onRefused: (error: unknown) => void;
}) {
  const { t, i18n } = useTranslation();
  const name = [member.first_name, member.last_name].filter(Boolean).join(' ');
  const label = name || member.email;
  const change = useChangeUser(member.id, actor.id, {
    onMutate: () => onRefused(null),
    onError: onRefused,
    onSuccess: (_updated, body) => {
      notify(
        body.role
          ? t('team.roleChanged', { name: label, role: t(`roles.${body.role}`) })
          : body.is_active
            ? t('team.reactivated', { name: label })
            : t('team.deactivated', { name: label }),
      );
    },
  });
  const allowed = allowedChanges(actor, member, activeOwners);
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
        {allowed.role ? (
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
        {member.is_active
          ? allowed.deactivate && (
              <ConfirmButton
                aria-label={t('team.deactivateOf', { name: label })}
                title={t('team.deactivate')}
                text={t('team.deactivateConfirm', { name: label })}
                onConfirm={() => change.mutate({ is_active: false })}
              >
                {t('team.deactivate')}
              </ConfirmButton>
            )
          : allowed.role && (
              <Button
                size="compact-xs"
                variant="light"
                aria-label={t('team.reactivateOf', { name: label })}
                onClick={() => change.mutate({ is_active: true })}
              >
                {t('team.reactivate')}
              </Button>
            )}
      </Table.Td>
    </Table.Tr>
  );
}

function TeamList() {
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

function MembersTable({ users, actor }: { users: TeamUser[]; actor: { id: string; role: Role } }) {
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
          { label: t('team.member') },
          { label: t('team.role') },
          { label: t('team.state') },
          { label: t('team.lastLogin') },
          { label: t('common.actions') },
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
