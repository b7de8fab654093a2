import { Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { notify } from '../../components/notify';
import { useUnsavedChanges } from '../../components/unsaved-changes';
import { grantableRoles, type Role } from './team-rules';
import { useCreateInvitation } from './queries';
import { FormActions } from '../../components/FormActions';
import { TeamError } from './TeamError';
import { type IssuedInvitation, issuedNotice } from './team-types';

export function InviteUser({
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
