import { Badge, Group, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatNumber, formatScore } from '../../format';
import { type ReviewMessage } from './queries';
import { summary } from './ReplyReview';
import { modelLabel } from '../../labels';

/** What a bot reply carried: knowledge sources with scores, actions, blocks, hand-over, tokens, model. */
export function ReplyFacts({ message }: { message: ReviewMessage }) {
  const { t, i18n } = useTranslation();
  return (
    <Stack gap={4} mt="xs" data-testid="reply-facts">
      <Group gap={6}>
        <Badge size="sm" variant="light" color={message.knowledge_used ? 'green' : 'yellow'}>
          {message.knowledge_used ? t('review.fromKnowledge') : t('review.noKnowledge')}
        </Badge>
        {message.handover_reason && (
          <Badge size="sm" variant="light" color="orange">
            {t('review.handedOver', {
              reason: t(`review.reasons.${message.handover_reason}`, {
                defaultValue: message.handover_reason,
              }),
            })}
          </Badge>
        )}
        {message.model && (
          <Text size="xs" c="dimmed">
            {t('review.model', { model: modelLabel(message.model, t) })}
          </Text>
        )}
        <Text size="xs" c="dimmed">
          {t('review.tokens', { count: message.tokens, value: formatNumber(message.tokens, i18n.language) })}
        </Text>
      </Group>
      {message.sources.length > 0 && (
        <Text size="xs" component="div">
          {t('review.sources')}:{' '}
          {message.sources.map((s, i) => (
            <span key={s.entry_id}>
              {i > 0 && ', '}
              {s.title} ({t('review.score', { score: formatScore(s.score, i18n.language) })})
            </span>
          ))}
        </Text>
      )}
      {message.actions.length > 0 && (
        <Text size="xs">
          {t('review.actions', { count: message.actions.length, list: summary(message.actions) })}
        </Text>
      )}
      {message.blocks.length > 0 && (
        <Text size="xs">
          {t('review.blocks', { count: message.blocks.length, list: summary(message.blocks) })}
        </Text>
      )}
    </Stack>
  );
}
