import { Alert, Badge, Group, List, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { components } from '../../api/schema';

type Warning = components['schemas']['PreflightResult']['messagingWarnings'][number];

/**
 * The pre-flight's warnings for a bot on WhatsApp: which block does not fit the platform's
 * buttons or list message and which limit it passes (it is sent as a numbered text list there,
 * nothing is cut). Only bots with a WhatsApp connection get any.
 */
export function MessagingWarnings({ warnings }: { warnings: Warning[] }) {
  const { t, i18n } = useTranslation();
  if (warnings.length === 0) return null;
  const language = i18n.language === 'en' ? 'en' : 'de';
  return (
    <Alert color="orange" title={t('flow.messaging.title')} mt="sm" data-testid="messaging-warnings">
      <Text size="sm" mb="xs">
        {t('flow.messaging.intro')}
      </Text>
      <List size="sm" spacing={6}>
        {warnings.map((warning) => (
          <List.Item key={`${warning.blockId}:${warning.limit}`} data-limit={warning.limit}>
            <Group gap={6} wrap="wrap">
              <Badge variant="light" color="orange">
                {t(`flow.messaging.limits.${warning.limit}`)}
              </Badge>
              <Text span size="sm">
                {warning.message[language]}
              </Text>
            </Group>
          </List.Item>
        ))}
      </List>
    </Alert>
  );
}
