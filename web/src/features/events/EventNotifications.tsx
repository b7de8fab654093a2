import { Badge, Button, Group, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { NoneYet } from '../../components/NoneYet';
import { QueryState } from '../../components/QueryState';
import { Section } from '../../components/Section';
import { ErrorAlert } from '../../components/states';
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
    <Section
      title={t('events.notifications')}
      action={
        unread.length > 0 && <Badge color="indigo">{t('events.unread', { count: unread.length })}</Badge>
      }
      testId="notifications"
    >
      {read.error && <ErrorAlert error={read.error} />}
      <QueryState
        query={notes}
        isEmpty={(data) => data.data.length === 0}
        empty={<NoneYet text={t('events.noNotifications')} />}
      >
        {(data) => (
          <Stack gap={6} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
            {data.data.map((n) => (
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
      </QueryState>
    </Section>
  );
}
