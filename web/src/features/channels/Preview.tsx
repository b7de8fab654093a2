import { Card, Text, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { previewDocument } from './origins';
import { type WidgetSettings } from './queries';
import { HEX, type Values, toBody } from './widget-form';

/** The real widget in preview mode (no requests), in a frame, following the form as it is typed. */
export function Preview({
  botName,
  settings,
  values,
}: {
  botName: string;
  settings: WidgetSettings;
  values: Values;
}) {
  const { t } = useTranslation();
  const [debounced] = useDebouncedValue(values, 400);
  const doc = useMemo(() => {
    const body = toBody(debounced);
    const theme = Object.fromEntries(
      Object.entries(body.theme ?? {}).filter(
        ([key, value]) => !key.endsWith('_color') || (typeof value === 'string' && HEX.test(value)),
      ),
    );
    return previewDocument(window.location.origin, settings.publishable_key, {
      name: botName,
      language: debounced.language,
      theme,
    });
  }, [debounced, botName, settings.publishable_key]);
  return (
    <Card withBorder>
      <Title order={3} size="h5" mb="xs">
        {t('channels.website.preview')}
      </Title>
      <Text size="xs" c="dimmed" mb="xs">
        {t('channels.website.previewHelp')}
      </Text>
      <iframe
        title={t('channels.website.preview')}
        srcDoc={doc}
        data-testid="widget-preview"
        style={{
          width: '100%',
          height: 620,
          border: '1px solid var(--mantine-color-gray-3)',
          borderRadius: 8,
        }}
      />
    </Card>
  );
}
