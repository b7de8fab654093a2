import { Alert } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/states';
import { teamRefusalKey } from './team-rules';

/** An API refusal in the user's language when it is a known team rule, else the API's sentence. */
export function TeamError({ error }: { error: unknown }) {
  const { t } = useTranslation();
  const key = teamRefusalKey(error);
  if (!key) return <ErrorAlert error={error} />;
  return (
    <Alert color="red" title={t('team.refusedTitle')} role="alert">
      {t(key)}
    </Alert>
  );
}
