import { Badge, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCan } from '../../app/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { SecretOnce } from '../../components/SecretOnce';
import { EmptyState, ErrorAlert, Loading } from '../../components/states';
import { formatDateTime } from '../../format';
import { DataTable } from '../../components/DataTable';
import { Section } from '../../components/Section';
import { useApiKeys, useGenerateApiKey, useRevokeApiKey } from './queries';

export function ApiKeysPage() {
  const { t, i18n } = useTranslation();
  const canManage = useCan('api_key:manage');
  const [secret, setSecret] = useState<string | null>(null);
  const keys = useApiKeys(canManage);
  const generate = useGenerateApiKey();
  const onGenerate = () => generate.mutate(undefined, { onSuccess: (result) => setSecret(result.key) });
  const revoke = useRevokeApiKey();
  if (!canManage) return <EmptyState title={t('settings.tabs.api')} text={t('errors.noPermission')} />;
  if (keys.isPending) return <Loading />;
  if (keys.error) return <ErrorAlert error={keys.error} />;
  const active = keys.data.data.find((k) => k.is_active);

  return (
    <Stack>
      <Section title={t('apiKeys.title')} intro={t('apiKeys.intro')}>
        {secret ? (
          <SecretOnce label={t('apiKeys.newKey')} secret={secret} onDone={() => setSecret(null)} />
        ) : (
          <ConfirmButton
            size="sm"
            variant="filled"
            danger={false}
            loading={generate.isPending}
            ask={Boolean(active)}
            title={t('apiKeys.generate')}
            text={t('apiKeys.replaceConfirm')}
            onConfirm={onGenerate}
          >
            {t('apiKeys.generate')}
          </ConfirmButton>
        )}
        {(generate.error || revoke.error) && <ErrorAlert error={generate.error ?? revoke.error} />}
      </Section>
      <Section title={t('apiKeys.list')}>
        {keys.data.data.length === 0 ? (
          <Text c="dimmed">{t('apiKeys.none')}</Text>
        ) : (
          <DataTable
            columns={[
              t('apiKeys.prefix'),
              t('apiKeys.state'),
              t('common.created'),
              t('apiKeys.lastUsed'),
              t('apiKeys.expires'),
              t('common.actions'),
            ]}
            minWidth={600}
          >
            {keys.data.data.map((key) => (
              <Table.Tr key={key.id}>
                <Table.Td>
                  <code>{key.key_prefix}…</code>
                </Table.Td>
                <Table.Td>
                  <Badge color={key.is_active ? 'green' : 'gray'} variant="light">
                    {key.is_active ? t('apiKeys.active') : t('apiKeys.inactive')}
                  </Badge>
                </Table.Td>
                <Table.Td>{formatDateTime(key.created_at, i18n.language)}</Table.Td>
                <Table.Td>{formatDateTime(key.last_used_at, i18n.language)}</Table.Td>
                <Table.Td>
                  {key.expires_at ? formatDateTime(key.expires_at, i18n.language) : t('apiKeys.never')}
                </Table.Td>
                <Table.Td>
                  {key.is_active && (
                    <ConfirmButton
                      title={t('apiKeys.revoke')}
                      text={t('apiKeys.revokeConfirm')}
                      onConfirm={() => revoke.mutate(key.id)}
                    >
                      {t('apiKeys.revoke')}
                    </ConfirmButton>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </DataTable>
        )}
      </Section>
    </Stack>
  );
}
