import { Alert, Anchor, Button, Center, Group, Loader, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PublicFrame } from '../../app/PublicFrame';
import { useAcceptInvitation, useInvitationPreview } from './queries';
import { NewPasswordFields, newPasswordValidation } from './NewPasswordFields';
import { InvitationRefusal } from './TeamError';

/** The token of the link: it travels in the fragment, which the browser never sends to a server. */
function tokenFromLocation(): string {
  return decodeURIComponent(globalThis.location?.hash.replace(/^#/, '') ?? '');
}

/** The page an invitation link opens: the invited person sets their names and password. */
export function AcceptInvitationPage() {
  const { t } = useTranslation();
  const [token] = useState(tokenFromLocation);
  useEffect(() => {
    document.title = `${t('invitation.title')} · Parley`;
  }, [t]);
  const preview = useInvitationPreview(token);
  const form = useForm({
    initialValues: { first_name: '', last_name: '', password: '', repeat: '' },
    validate: newPasswordValidation('password', t),
  });
  const accept = useAcceptInvitation(token);

  let content;
  if (token === '') {
    content = (
      <Alert color="red" title={t('invitation.refusedTitle')} role="alert">
        {t('invitation.unknown')}
      </Alert>
    );
  } else if (accept.isSuccess) {
    content = (
      <Stack>
        <Alert color="green" role="status" title={t('invitation.doneTitle')}>
          {t('invitation.done', { email: accept.data.email, team: accept.data.tenant_name })}
        </Alert>
        <Button component={Link} to="/login">
          {t('invitation.toLogin')}
        </Button>
      </Stack>
    );
  } else if (preview.isPending) {
    content = (
      <Center>
        <Loader aria-label={t('common.loading')} />
      </Center>
    );
  } else if (preview.error) {
    content = <InvitationRefusal error={preview.error} />;
  } else {
    content = (
      <form onSubmit={form.onSubmit((values) => accept.mutate(values))} noValidate>
        <Stack>
          <Text>
            {t('invitation.intro', {
              team: preview.data.tenant_name,
              role: t(`roles.${preview.data.role}`),
            })}
          </Text>
          {accept.error && <InvitationRefusal error={accept.error} />}
          <TextInput label={t('team.email')} value={preview.data.email} readOnly autoComplete="username" />
          <Group grow>
            <TextInput
              label={t('team.firstName')}
              autoComplete="given-name"
              {...form.getInputProps('first_name')}
            />
            <TextInput
              label={t('team.lastName')}
              autoComplete="family-name"
              {...form.getInputProps('last_name')}
            />
          </Group>
          <NewPasswordFields
            label={t('invitation.password')}
            repeatLabel={t('invitation.repeat')}
            input={form.getInputProps('password')}
            repeatInput={form.getInputProps('repeat')}
          />
          <Button type="submit" loading={accept.isPending}>
            {t('invitation.submit')}
          </Button>
          <Anchor component={Link} to="/login" size="sm">
            {t('invitation.haveAccount')}
          </Anchor>
        </Stack>
      </form>
    );
  }

  return (
    <PublicFrame title={t('invitation.title')} width={480}>
      {content}
    </PublicFrame>
  );
}
