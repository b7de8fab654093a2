import { Avatar, Group, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { useMe } from '../../app/session';
import { notify } from '../../components/notify';
import { useFormUnsavedChanges } from '../../components/unsaved-changes';
import { Section } from '../../components/Section';
import { FormActions } from '../../components/FormActions';
import { useChangeOwnProfile } from './queries';

/** An https address with a host and no user name or password (the API checks the same). */
export function isPictureAddress(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname !== '' && !url.username && !url.password;
  } catch {
    return false;
  }
}

const blankToNull = (value: string) => (value.trim() ? value.trim() : null);

/** Settings → Team: everyone's own name and picture, which widget visitors see on their replies. */
export function OwnProfile() {
  const { t } = useTranslation();
  const { user } = useMe();
  const form = useForm({
    initialValues: {
      first_name: user.first_name ?? '',
      last_name: user.last_name ?? '',
      avatar_url: user.avatar_url ?? '',
    },
    validate: {
      first_name: (v) => (v.length > 100 ? t('team.profile.tooLong') : null),
      last_name: (v) => (v.length > 100 ? t('team.profile.tooLong') : null),
      avatar_url: (v) =>
        !v.trim() || (v.trim().length <= 2000 && isPictureAddress(v.trim()))
          ? null
          : t('team.profile.avatarInvalid'),
    },
  });
  const change = useChangeOwnProfile({
    onSuccess: () => {
      form.resetDirty();
      notify(t('team.profile.saved'));
    },
  });
  const send = (values: typeof form.values) =>
    change.mutateAsync({
      first_name: blankToNull(values.first_name),
      last_name: blankToNull(values.last_name),
      avatar_url: blankToNull(values.avatar_url),
    });
  useFormUnsavedChanges(form, send);
  const picture = isPictureAddress(form.values.avatar_url.trim());
  const name = [form.values.first_name, form.values.last_name].join(' ').trim();
  return (
    <Section title={t('team.profile.title')} intro={t('team.profile.intro')}>
      <form onSubmit={form.onSubmit((values) => void send(values).catch(() => undefined))} noValidate>
        <Stack maw={420}>
          <Group grow>
            <TextInput
              label={t('team.profile.firstName')}
              autoComplete="given-name"
              {...form.getInputProps('first_name')}
            />
            <TextInput
              label={t('team.profile.lastName')}
              autoComplete="family-name"
              {...form.getInputProps('last_name')}
            />
          </Group>
          <Group align="flex-start" wrap="nowrap">
            {/* The dashboard's own policy loads no images from elsewhere: the initial stands for the picture. */}
            <Avatar
              alt={t('team.profile.preview')}
              radius="xl"
              size="lg"
              mt={24}
              color={picture ? 'green' : 'gray'}
            >
              {name ? name.slice(0, 1).toUpperCase() : null}
            </Avatar>
            <TextInput
              style={{ flex: 1 }}
              type="url"
              label={t('team.profile.avatar')}
              description={t('team.profile.avatarHelp')}
              placeholder="https://"
              {...form.getInputProps('avatar_url')}
            />
          </Group>
          <FormActions start pending={change.isPending} submit={t('team.profile.submit')} />
        </Stack>
      </form>
    </Section>
  );
}
