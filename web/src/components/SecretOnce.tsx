import { Alert, Code, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { CopyAndDone } from './CopyAndDone';

/** A secret (API key, signing secret) shown this one time, with a copy button and a warning. */
export function SecretOnce({ label, secret, onDone }: { label: string; secret: string; onDone: () => void }) {
  const { t } = useTranslation();
  return (
    <Alert color="yellow" title={label} role="status">
      <Stack gap="sm">
        <Text size="sm">{t('secret.warning')}</Text>
        <Code block data-testid="secret-value" style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
          {secret}
        </Code>
        <CopyAndDone value={secret} doneLabel={t('secret.done')} onDone={onDone} />
      </Stack>
    </Alert>
  );
}
