import { Badge, Button, Group, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useCan } from '../../app/session';
import { notify } from '../../components/notify';
import { errorMessage } from '../../components/states';
import { useConnectionTemplates, useRefreshTemplates } from './connection-queries';

const COLOUR: Record<string, string> = { APPROVED: 'green', PENDING: 'yellow', REJECTED: 'red' };

/**
 * A WhatsApp connection's message templates (for the closed 24-hour window) with their status
 * (orange, with the reason on hover: one the inbox cannot fill), and "Vorlagen einlesen" to read
 * them from Meta or Twilio anew.
 */
export function ConnectionTemplates({ botId, connectionId }: { botId: string; connectionId: string }) {
  const { t } = useTranslation();
  const canEdit = useCan('bot:edit');
  const templates = useConnectionTemplates(botId, connectionId);
  const refresh = useRefreshTemplates(botId, connectionId);
  const list = templates.data ?? [];
  return (
    <Stack gap={4} data-testid="connection-templates">
      <Group gap="xs">
        <Text size="sm">
          {t('connections.templates.title', {
            count: list.filter((tpl) => tpl.status === 'APPROVED').length,
          })}
        </Text>
        {canEdit && (
          <Button
            size="compact-xs"
            variant="light"
            loading={refresh.isPending}
            onClick={() =>
              refresh.mutate(undefined, {
                onSuccess: () => notify(t('connections.templates.refreshed')),
                onError: (error) => notify(errorMessage(error, t('connections.templates.failed')), 'red'),
              })
            }
          >
            {t('connections.templates.refresh')}
          </Button>
        )}
      </Group>
      {list.length > 0 && (
        <Group gap={6}>
          {list.map((tpl) => (
            <Badge
              key={`${tpl.name}|${tpl.language}`}
              variant="outline"
              color={tpl.unsupported ? 'orange' : (COLOUR[tpl.status] ?? 'gray')}
              tt="none"
              title={tpl.unsupported ?? undefined}
            >
              {tpl.name} ({tpl.language}) · {tpl.status}
            </Badge>
          ))}
        </Group>
      )}
    </Stack>
  );
}
