import { Alert, Code, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { CopyAndDone } from '../../components/CopyAndDone';
import { type IssuedInvitation } from './team-types';

/** The accept link of an invitation when no e-mail is sent: the inviter passes it on. */
export function AcceptLink({ issued, onDone }: { issued: IssuedInvitation; onDone: () => void }) {
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
