import { Badge, Button, Select, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ConfirmButton } from '../../components/ConfirmButton';
import { notify } from '../../components/notify';
import { formatDateTime } from '../../format';
import { allowedChanges, grantableRoles, type Role } from './team-rules';
import { useChangeUser } from './queries';
import { type TeamUser } from './team-types';

export function MemberRow({
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
