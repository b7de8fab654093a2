import { Card, Code, Stack, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCan } from '../../app/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { notify } from '../../components/notify';
import { SecretOnce } from '../../components/SecretOnce';
import { ErrorAlert } from '../../components/states';
import { KeyRow } from './KeyRow';
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
        <KeyRow
          label={t('channels.website.publishableKey')}
          help={t('channels.website.publishableKeyHelp')}
          value={<Code data-testid="publishable-key">{settings.publishable_key}</Code>}
        >
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
        </KeyRow>
        <KeyRow
          label={t('channels.website.identitySecret')}
          help={t(
            settings.identity_secret_set ? 'channels.website.secretSet' : 'channels.website.secretNone',
          )}
        >
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
        </KeyRow>
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
