import { Badge, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ErrorAlert, Loading } from '../../components/states';
import { formatDateTime } from '../../format';
import { describeNotification } from './notifications';
import { useEventNotifications, useMarkNotificationRead } from './queries';

/** What happened to the event and its bookings, newest first; unread ones can be marked read. */
export function EventNotifications({ eventId }: { eventId: string }) {
  const { t, i18n } = useTranslation();
  const notes = useEventNotifications(eventId);
  const read = useMarkNotificationRead(eventId);
  const unread = notes.data?.data.filter((n) => !n.read_at) ?? [];
  return (
    <Card withBorder data-testid="notifications">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4">
          {t('events.notifications')}
        </Title>
        {unread.length > 0 && <Badge color="indigo">{t('events.unread', { count: unread.length })}</Badge>}
      </Group>
      {read.error && <ErrorAlert error={read.error} />}
      {notes.isPending ? (
        <Loading />
      ) : notes.error ? (
        <ErrorAlert error={notes.error} onRetry={() => void notes.refetch()} />
      ) : notes.data.data.length === 0 ? (
        <Text c="dimmed" size="sm">
          {t('events.noNotifications')}
        </Text>
      ) : (
        <Stack gap={6} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
          {notes.data.data.map((n) => (
            <Group
              key={n.id}
              component="li"
              justify="space-between"
              wrap="nowrap"
              gap="sm"
              align="flex-start"
            >
              <div style={{ minWidth: 0 }}>
                <Text size="sm" fw={n.read_at ? 400 : 600}>
                  {describeNotification(n, t, i18n.language)}
                </Text>
                <Text size="xs" c="dimmed">
                  {formatDateTime(n.created_at, i18n.language)}
                </Text>
              </div>
              {!n.read_at && (
                <Button
                  size="compact-xs"
                  variant="subtle"
                  style={{ flexShrink: 0 }}
                  loading={read.isPending && read.variables === n.id}
                  onClick={() => read.mutate(n.id)}
                >
                  {t('events.markRead')}
                </Button>
              )}
            </Group>
          ))}
        </Stack>
      )}
    </Card>
  );
}
