import { Alert } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/states';
import { invitationRefusalKey, teamRefusalKey } from './team-rules';

/** An API refusal in the user's language when `keyOf` knows its rule, else the API's sentence. */
function RuleRefusal({
  error,
  keyOf,
  title,
}: {
  error: unknown;
  keyOf: (error: unknown) => string | null | undefined;
  title: string;
}) {
  const { t } = useTranslation();
  const key = keyOf(error);
  if (!key) return <ErrorAlert error={error} />;
  return (
    <Alert color="red" title={title} role="alert">
      {t(key)}
    </Alert>
  );
}

/** A refused change of the team (a known team rule in words). */
export function TeamError({ error }: { error: unknown }) {
  const { t } = useTranslation();
  return <RuleRefusal error={error} keyOf={teamRefusalKey} title={t('team.refusedTitle')} />;
}

/** A refused invitation (expired, used, …) in words. */
export function InvitationRefusal({ error }: { error: unknown }) {
  const { t } = useTranslation();
  return <RuleRefusal error={error} keyOf={invitationRefusalKey} title={t('invitation.refusedTitle')} />;
}
