import { Alert, Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import type { Me } from '../../api/types';
import { PublicFrame } from '../../app/PublicFrame';
import { markSignedIn } from '../../app/session-state';

/** Only paths inside the app are followed after sign-in. */
export function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

/** A refused sign-in: its HTTP status and how long to wait (Retry-After). */
export class LoginRefusal extends Error {
  constructor(
    readonly status: number,
    readonly retryAfterSeconds: number | null,
  ) {
    super(`sign-in refused (${status})`);
  }
}

/*
 * Sign-in asks the API with fetch itself: the generated client and its error wording load with
 * the pages behind sign-in. Same origin; the header the API demands of cookie writes.
 */
async function signIn(values: { email: string; password: string }): Promise<Me> {
  const response = await fetch('/api/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-requested-with': 'parley' },
    body: JSON.stringify(values),
  });
  if (response.ok) {
    // The answer holds the user, their permissions and tenant, as GET /api/me would.
    const { user, permissions, tenant } = (await response.json()) as Me;
    if (!user || !Array.isArray(permissions) || !tenant) throw new LoginRefusal(502, null);
    return { user, permissions, tenant };
  }
  const retry = Number(response.headers.get('retry-after'));
  throw new LoginRefusal(response.status, Number.isFinite(retry) && retry > 0 ? retry : null);
}

export function loginErrorText(
  error: unknown,
  t: (key: string, options?: Record<string, unknown>) => string,
) {
  if (error instanceof LoginRefusal) {
    if (error.status === 401) return t('login.wrong');
    if (error.status === 429) {
      const minutes = Math.max(1, Math.ceil((error.retryAfterSeconds ?? 60) / 60));
      return t('login.locked', { count: minutes });
    }
    if (error.status === 400) return t('login.invalid');
  }
  return t('login.unreachable');
}

/** The sign-in form's own checks before it asks the API. */
export function loginProblems(values: { email: string; password: string }): {
  email?: string;
  password?: string;
} {
  return {
    ...(/^\S+@\S+$/.test(values.email) ? {} : { email: 'login.emailInvalid' }),
    ...(values.password ? {} : { password: 'login.passwordMissing' }),
  };
}

/*
 * The sign-in page is the first thing a visitor loads: plain React state instead of a form
 * library and a query cache, so its JavaScript stays small (see scripts/web-budget.mjs).
 */
export function LoginPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [values, setValues] = useState({ email: '', password: '' });
  const [problems, setProblems] = useState<ReturnType<typeof loginProblems>>({});
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = loginProblems(values);
    setProblems(found);
    if (found.email || found.password) return;
    setPending(true);
    setError(null);
    try {
      // The sign-in's own answer is the session: the signed-in pages ask nothing again, and an
      // older request's 401 (sent before this sign-in) changes nothing.
      markSignedIn(await signIn(values));
      await navigate(safeNext(params.get('next')), { replace: true });
    } catch (caught) {
      setError(caught);
    } finally {
      setPending(false);
    }
  }
  const field = (name: 'email' | 'password') => ({
    value: values[name],
    onChange: (event: { currentTarget: { value: string } }) => {
      const value = event.currentTarget.value;
      setValues((current) => ({ ...current, [name]: value }));
      setProblems((current) => ({ ...current, [name]: undefined }));
    },
    error: problems[name] ? t(problems[name]) : undefined,
  });

  useEffect(() => {
    document.title = `${t('login.title')} · Parley`;
  }, [t]);

  return (
    <PublicFrame title={t('login.title')} width={400}>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <Stack>
          {params.get('next') && !error && (
            <Alert color="blue" role="status">
              {t('login.expired')}
            </Alert>
          )}
          {error !== null && (
            <Alert color="red" role="alert" title={t('login.failed')}>
              {loginErrorText(error, t)}
            </Alert>
          )}
          <TextInput
            label={t('login.email')}
            type="email"
            autoComplete="username"
            required
            {...field('email')}
          />
          <PasswordInput
            label={t('login.password')}
            autoComplete="current-password"
            required
            {...field('password')}
          />
          <Button type="submit" loading={pending}>
            {t('login.submit')}
          </Button>
        </Stack>
      </form>
    </PublicFrame>
  );
}
