import { Alert } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/states';
import { invitationRefusalKey } from './team-rules';

export function Refusal({ error }: { error: unknown }) {
  const { t } = useTranslation();
  const key = invitationRefusalKey(error);
  if (!key) return <ErrorAlert error={error} />;
  return (
    <Alert color="red" title={t('invitation.refusedTitle')} role="alert">
      {t(key)}
    </Alert>
  );
}
