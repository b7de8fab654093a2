import { Alert, Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';

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
        <Group>
          <CopyButton value={secret}>
            {({ copied, copy }) => (
              <Button size="xs" onClick={copy} color={copied ? 'teal' : 'blue'}>
                {copied ? t('secret.copied') : t('secret.copy')}
              </Button>
            )}
          </CopyButton>
          <Button size="xs" variant="default" onClick={onDone}>
            {t('secret.done')}
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}
