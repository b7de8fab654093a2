import { Card, Code, Group, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCan } from '../../app/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { notify } from '../../components/notify';
import { SecretOnce } from '../../components/SecretOnce';
import { ErrorAlert } from '../../components/states';
import { useRotateIdentitySecret, useRotatePublishableKey, type WidgetSettings } from './queries';

export function Keys({ botId, settings }: { botId: string; settings: WidgetSettings }) {
  const { t } = useTranslation();
  const canEdit = useCan('bot:edit');
  const rotateKey = useRotatePublishableKey(botId);
  const rotateSecret = useRotateIdentitySecret(botId);
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <Card withBorder>
      <Stack>
        <Title order={3} size="h5">
          {t('channels.website.keys')}
        </Title>
        {(rotateKey.error ?? rotateSecret.error) && (
          <ErrorAlert error={rotateKey.error ?? rotateSecret.error} />
        )}
        <Group justify="space-between" align="flex-end">
          <div>
            <Text size="sm" fw={500}>
              {t('channels.website.publishableKey')}
            </Text>
            <Text size="xs" c="dimmed">
              {t('channels.website.publishableKeyHelp')}
            </Text>
            <Code data-testid="publishable-key">{settings.publishable_key}</Code>
          </div>
          {canEdit && (
            <ConfirmButton
              size="sm"
              variant="light"
              loading={rotateKey.isPending}
              title={t('channels.website.rotateKey')}
              text={t('channels.website.rotateKeyConfirm')}
              onConfirm={() =>
                rotateKey.mutate(undefined, { onSuccess: () => notify(t('channels.website.keyRotated')) })
              }
            >
              {t('channels.website.rotateKey')}
            </ConfirmButton>
          )}
        </Group>
        <Group justify="space-between" align="flex-end">
          <div>
            <Text size="sm" fw={500}>
              {t('channels.website.identitySecret')}
            </Text>
            <Text size="xs" c="dimmed">
              {settings.identity_secret_set
                ? t('channels.website.secretSet')
                : t('channels.website.secretNone')}
            </Text>
          </div>
          {canEdit && (
            <ConfirmButton
              size="sm"
              variant="light"
              danger={false}
              loading={rotateSecret.isPending}
              ask={settings.identity_secret_set}
              title={t('channels.website.rotateSecret')}
              text={t('channels.website.rotateSecretConfirm')}
              confirm={t('channels.website.rotateSecret')}
              onConfirm={() =>
                rotateSecret.mutate(undefined, { onSuccess: (r) => setSecret(r.identity_secret) })
              }
            >
              {settings.identity_secret_set
                ? t('channels.website.rotateSecret')
                : t('channels.website.createSecret')}
            </ConfirmButton>
          )}
        </Group>
        {secret && (
          <SecretOnce
            label={t('channels.website.identitySecret')}
            secret={secret}
            onDone={() => setSecret(null)}
          />
        )}
      </Stack>
    </Card>
  );
}
