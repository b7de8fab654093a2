import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/states';
import { useReviewReply, type ReviewMessage } from './queries';

/** A short label per action or block: its type (or kind) and title where there is one. */
export function summary(items: unknown[]): string {
  return items
    .map((item) => {
      if (typeof item !== 'object' || item === null) return String(item);
      const o = item as Record<string, unknown>;
      const kind = [o.type, o.kind, o.status].find((v) => typeof v === 'string');
      const title = [o.title, o.name, o.event_title].find((v) => typeof v === 'string');
      return [kind, title].filter(Boolean).join(': ') || '…';
    })
    .join(', ');
}

/** Staff's verdict on a bot reply: good or bad, with a note. */
export function ReplyVerdict({
  conversationId,
  message,
  canReview,
}: {
  conversationId: string;
  message: ReviewMessage;
  canReview: boolean;
}) {
  const { t } = useTranslation();
  const review = useReviewReply(conversationId);
  const [note, setNote] = useState(message.review?.note ?? '');
  const verdict = message.review?.verdict ?? null;
  const rate = (next: 'good' | 'bad') =>
    review.mutate({ messageId: message.id, verdict: next, note: note.trim() || undefined });
  if (!canReview) {
    return verdict ? (
      <Text size="xs" mt="xs">
        {t(`review.verdicts.${verdict}`)}
        {message.review?.note ? ` – ${message.review.note}` : ''}
      </Text>
    ) : null;
  }
  return (
    <Stack gap={4} mt="xs" data-testid="reply-verdict">
      <Group gap="xs" align="flex-end" wrap="wrap">
        <TextInput
          size="xs"
          maxLength={2000}
          placeholder={t('review.notePlaceholder')}
          aria-label={t('review.note')}
          value={note}
          onChange={(e) => setNote(e.currentTarget.value)}
          style={{ flex: '1 1 200px' }}
        />
        <Group gap="xs" wrap="nowrap">
          <Button
            size="compact-sm"
            color="green"
            variant={verdict === 'good' ? 'filled' : 'light'}
            aria-pressed={verdict === 'good'}
            loading={review.isPending && review.variables?.verdict === 'good'}
            onClick={() => rate('good')}
          >
            {t('review.good')}
          </Button>
          <Button
            size="compact-sm"
            color="red"
            variant={verdict === 'bad' ? 'filled' : 'light'}
            aria-pressed={verdict === 'bad'}
            loading={review.isPending && review.variables?.verdict === 'bad'}
            onClick={() => rate('bad')}
          >
            {t('review.bad')}
          </Button>
          {verdict && (
            <Button
              size="compact-sm"
              variant="subtle"
              color="gray"
              onClick={() => review.mutate({ messageId: message.id, verdict: null })}
            >
              {t('review.clear')}
            </Button>
          )}
        </Group>
      </Group>
      {message.review?.reviewed_by_name && (
        <Text size="xs" c="dimmed">
          {t('review.by', { name: message.review.reviewed_by_name })}
        </Text>
      )}
      {review.error && <ErrorAlert error={review.error} />}
    </Stack>
  );
}
