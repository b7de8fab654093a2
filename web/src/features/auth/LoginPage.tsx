import { Alert, Button, Center, Group, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiError, api, call } from '../../api/client';
import { LanguageSwitch } from '../../app/LanguageSwitch';
import { ME_KEY } from '../../app/session';

/** Only paths inside the app are followed after sign-in. */
export function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function loginErrorText(
  error: unknown,
  t: (key: string, options?: Record<string, unknown>) => string,
) {
  if (error instanceof ApiError) {
    if (error.status === 401) return t('login.wrong');
    if (error.status === 429) {
      const minutes = Math.max(1, Math.ceil((error.retryAfterSeconds ?? 60) / 60));
      return t('login.locked', { count: minutes });
    }
    if (error.status === 400) return t('login.invalid');
  }
  return t('errors.generic');
}

export function LoginPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const queryClient = useQueryClient();
  const form = useForm({
    initialValues: { email: '', password: '' },
    validate: {
      email: (value) => (/^\S+@\S+$/.test(value) ? null : t('login.emailInvalid')),
      password: (value) => (value ? null : t('login.passwordMissing')),
    },
  });
  const login = useMutation({
    mutationFn: (values: { email: string; password: string }) =>
      call(api.POST('/api/auth/login', { body: values })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ME_KEY });
      void navigate(safeNext(params.get('next')), { replace: true });
    },
  });
  useEffect(() => {
    document.title = `${t('login.title')} · Parley`;
  }, [t]);

  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={400}>
        <form onSubmit={form.onSubmit((values) => login.mutate(values))} noValidate>
          <Stack>
            <Group justify="space-between">
              <Title order={1} size="h2">
                {t('login.title')}
              </Title>
              <LanguageSwitch />
            </Group>
            {params.get('next') && !login.error && (
              <Alert color="blue" role="status">
                {t('login.expired')}
              </Alert>
            )}
            {login.error && (
              <Alert color="red" role="alert" title={t('login.failed')}>
                {loginErrorText(login.error, t)}
              </Alert>
            )}
            <TextInput
              label={t('login.email')}
              type="email"
              autoComplete="username"
              required
              {...form.getInputProps('email')}
            />
            <PasswordInput
              label={t('login.password')}
              autoComplete="current-password"
              required
              {...form.getInputProps('password')}
            />
            <Button type="submit" loading={login.isPending}>
              {t('login.submit')}
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
