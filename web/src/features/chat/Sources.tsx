import { Anchor, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ChatReply } from '../../api/types';
import { formatScore } from '../../format';

export function Sources({ reply }: { reply: ChatReply }) {
  const { t, i18n } = useTranslation();
  if (reply.sources.length === 0)
    return (
      <Text size="xs" c="dimmed">
        {t('chat.noSources')}
      </Text>
    );
  return (
    <Stack gap={2} data-testid="sources">
      <Text size="xs" fw={600}>
        {t('chat.sources')}
      </Text>
      {reply.sources.map((source) => (
        <Text size="xs" key={source.entry_id}>
          {source.source_url ? <Anchor href={source.source_url}>{source.title}</Anchor> : source.title} ·{' '}
          {formatScore(source.score, i18n.language)}
        </Text>
      ))}
      {reply.actions.length > 0 && (
        <Text size="xs">
          {t('chat.actions')}: {JSON.stringify(reply.actions)}
        </Text>
      )}
    </Stack>
  );
}
