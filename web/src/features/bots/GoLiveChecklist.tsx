import { Anchor, Badge, Card, Group, List, Text, ThemeIcon, Title, VisuallyHidden } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ErrorAlert, Loading } from '../../components/states';
import { useGoLive } from './queries';
import { ItemText } from './GoLiveItemText';

/** What is done and what is missing before the bot goes live; each open item links to its place. */
export function GoLiveChecklist({ botId }: { botId: string }) {
  const { t } = useTranslation();
  const golive = useGoLive(botId);
  if (golive.isPending) return <Loading />;
  if (golive.error) return <ErrorAlert error={golive.error} />;
  const { items, ready } = golive.data;
  const done = items.filter((i) => i.done).length;
  return (
    <Card withBorder data-testid="golive-checklist">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4">
          {t('bot.golive.title')}
        </Title>
        <Badge color={ready ? 'teal' : 'yellow'} variant="light">
          {t('bot.golive.progress', { done, total: items.length })}
        </Badge>
      </Group>
      <Text size="sm" mb="sm">
        {ready ? t('bot.golive.ready') : t('bot.golive.intro')}
      </Text>
      <List spacing="xs" size="sm" center>
        {items.map((item) => (
          <List.Item
            key={item.key}
            data-testid={`golive-${item.key}`}
            data-done={item.done}
            icon={
              <ThemeIcon
                size={20}
                radius="xl"
                color={item.done ? 'teal' : 'gray'}
                variant={item.done ? 'filled' : 'light'}
              >
                <span aria-hidden="true">{item.done ? '✓' : '·'}</span>
              </ThemeIcon>
            }
          >
            <VisuallyHidden>{item.done ? t('bot.golive.done') : t('bot.golive.open')}: </VisuallyHidden>
            <ItemText item={item} />
            {!item.done && (
              <>
                {' – '}
                <Anchor component={Link} to={`/bots/${botId}/${item.tab}`} size="sm">
                  {t(`bot.golive.actions.${item.key}`)}
                </Anchor>
              </>
            )}
          </List.Item>
        ))}
      </List>
    </Card>
  );
}

/** The open items in words, for the activation button ("Noch offen: …"), or null when none. */
export function useMissingText(botId: string): string | null {
  const { t } = useTranslation();
  const golive = useGoLive(botId);
  const missing = golive.data?.missing ?? [];
  if (missing.length === 0) return null;
  return t('bot.golive.missing', { items: missing.map((k) => t(`bot.golive.items.${k}`)).join(', ') });
}
