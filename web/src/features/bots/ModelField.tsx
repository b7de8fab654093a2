import { Alert, Select, Stack, Text, TextInput } from '@mantine/core';
import { type UseFormReturnType } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { useCan } from '../../app/session';
import { useModels } from './queries';
import { type Values, effectiveProvider, modelOptions } from './settings-form';

export function ModelField({ form }: { form: UseFormReturnType<Values> }) {
  const { t } = useTranslation();
  const canEdit = useCan('bot:edit');
  const catalog = useModels(canEdit);
  const value = form.values.model;
  if (!catalog.data) {
    return (
      <TextInput label={t('bot.model')} description={t('bot.help.model')} {...form.getInputProps('model')} />
    );
  }
  const offline = effectiveProvider(value, catalog.data.deployment) === 'offline';
  return (
    <Stack gap="xs">
      <Select
        label={t('bot.model')}
        description={t('bot.help.model')}
        allowDeselect={false}
        data={modelOptions(catalog.data, value, t)}
        {...form.getInputProps('model')}
      />
      {offline && (
        <Alert color="yellow" title={t('bot.modelOfflineTitle')} data-testid="offline-model-notice">
          <Text size="sm">{t('bot.modelOfflineText')}</Text>
          <Text size="sm" mt={4}>
            {t('bot.modelOfflineDocs')}
          </Text>
        </Alert>
      )}
    </Stack>
  );
}
