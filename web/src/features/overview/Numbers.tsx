import {
  Anchor,
  Card,
  Group,
  List,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { Suspense, lazy, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { Link } from 'react-router';
import { ErrorAlert, Loading } from '../../components/states';
import { formatDate, formatNumber } from '../../format';
import { useOverviewNumbers } from './queries';
import { useBots } from '../bots/queries';
import { Figure } from './Figure';

// The chart library is loaded only when the numbers are drawn.
const NumbersCharts = lazy(() => import('./NumbersCharts'));

const PERIODS = ['7', '30', '90'] as const;

/** A share 0–1 as a whole percentage, or a dash when there is nothing to divide by. */
export function percentText(share: number | null, language: string): string {
  if (share === null) return '—';
  return `${formatNumber(Math.round(share * 100), language)} %`;
}

/** A duration in seconds in minutes (or hours) for people. */
export function durationText(seconds: number | null, t: TFunction): string {
  if (seconds === null) return '—';
  if (seconds < 90) return t('numbers.seconds', { count: Math.round(seconds) });
  if (seconds < 90 * 60) return t('numbers.minutes', { count: Math.round(seconds / 60) });
  return t('numbers.hours', { count: Math.round(seconds / 360) / 10 });
}

/** The numbers a tenant asks for, per bot and period, with charts. */
export function Numbers() {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const [botId, setBotId] = useState<string | null>(null);
  const [period, setPeriod] = useState<string>('30');
  const to = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - (Number(period) - 1) * 86_400_000).toISOString().slice(0, 10);
  const bots = useBots();
  const numbers = useOverviewNumbers(botId, from, to, true);
  const botName = new Map((bots.data?.data ?? []).map((b) => [b.id, b.name]));
  const n = numbers.data;
  return (
    <Card withBorder data-testid="numbers">
      <Group justify="space-between" align="flex-end" mb="sm" wrap="wrap">
        <Title order={2} size="h4">
          {t('numbers.title')}
        </Title>
        <Group gap="sm" align="flex-end" wrap="wrap">
          <Select
            label={t('numbers.bot')}
            placeholder={t('numbers.allBots')}
            clearable
            value={botId}
            onChange={setBotId}
            data={(bots.data?.data ?? []).map((b) => ({ value: b.id, label: b.name }))}
            w={200}
          />
          <SegmentedControl
            aria-label={t('numbers.period')}
            value={period}
            onChange={setPeriod}
            data={PERIODS.map((p) => ({ value: p, label: t('numbers.days', { count: Number(p) }) }))}
          />
        </Group>
      </Group>
      {numbers.isPending ? (
        <Loading />
      ) : numbers.error ? (
        <ErrorAlert error={numbers.error} onRetry={() => void numbers.refetch()} />
      ) : n ? (
        <Stack>
          <Text size="xs" c="dimmed">
            {formatDate(n.from, lang)} – {formatDate(n.to, lang)}
          </Text>
          <SimpleGrid cols={{ base: 2, sm: 3, lg: 4 }}>
            <Figure
              testId="figure-conversations"
              label={t('numbers.conversations')}
              value={formatNumber(n.conversations, lang)}
            />
            <Figure
              testId="figure-knowledge"
              label={t('numbers.knowledgeShare')}
              value={percentText(n.knowledge_share, lang)}
              hint={t('numbers.ofReplies', { count: n.replies, value: formatNumber(n.replies, lang) })}
            />
            <Figure
              testId="figure-handed-over"
              label={t('numbers.handedOverShare')}
              value={percentText(n.handed_over_share, lang)}
              hint={t('numbers.handedOverCount', {
                count: n.handed_over,
                value: formatNumber(n.handed_over, lang),
              })}
            />
            <Figure
              testId="figure-first-reply"
              label={t('numbers.firstHumanReply')}
              value={durationText(n.first_human_reply.median_seconds, t)}
              hint={t('numbers.answeredOf', {
                answered: formatNumber(n.first_human_reply.answered, lang),
                handovers: formatNumber(n.first_human_reply.handovers, lang),
              })}
            />
            <Figure
              testId="figure-satisfaction"
              label={t('numbers.satisfaction')}
              value={
                n.satisfaction.average === null
                  ? '—'
                  : `${n.satisfaction.average.toLocaleString(lang, { maximumFractionDigits: 1 })} / 5`
              }
              hint={t('numbers.ratingsCount', {
                count: n.satisfaction.count,
                value: formatNumber(n.satisfaction.count, lang),
              })}
            />
            <Figure
              testId="figure-staff-reviews"
              label={t('numbers.staffReviews')}
              value={
                n.staff_reviews.good_share === null
                  ? '—'
                  : t('numbers.staffGood', { value: percentText(n.staff_reviews.good_share, lang) })
              }
              hint={t('numbers.staffCounts', {
                good: formatNumber(n.staff_reviews.good, lang),
                bad: formatNumber(n.staff_reviews.bad, lang),
              })}
            />
            <Figure
              testId="figure-bookings"
              label={t('numbers.bookings')}
              value={formatNumber(n.bookings.made, lang)}
              hint={t('numbers.waitlist', {
                count: n.bookings.waitlist,
                value: formatNumber(n.bookings.waitlist, lang),
              })}
            />
          </SimpleGrid>
          <Suspense fallback={<Loading />}>
            <NumbersCharts
              days={n.days.map((d) => ({ ...d, day: formatDate(d.day, lang) }))}
              distribution={n.satisfaction.distribution}
              texts={{
                conversationsPerDay: t('numbers.conversationsPerDay'),
                conversations: t('numbers.conversations'),
                handedOver: t('numbers.handedOver'),
                repliesPerDay: t('numbers.repliesPerDay'),
                fromKnowledge: t('numbers.fromKnowledge'),
                withoutKnowledge: t('numbers.withoutKnowledge'),
                ratings: t('numbers.ratings'),
                stars: (count) => t('numbers.stars', { count }),
                noRatings: t('numbers.noRatings'),
              }}
            />
          </Suspense>
          <div data-testid="top-unanswered">
            <Text size="sm" fw={600} mb={4}>
              {t('numbers.topUnanswered')}
            </Text>
            {n.top_unanswered.length === 0 ? (
              <Text size="sm" c="dimmed">
                {t('numbers.noUnanswered')}
              </Text>
            ) : (
              <List size="sm" spacing={2}>
                {n.top_unanswered.map((g) => (
                  <List.Item key={`${g.bot_id}:${g.key}`}>
                    <Anchor component={Link} to={`/bots/${g.bot_id}/knowledge`} size="sm">
                      {g.question}
                    </Anchor>{' '}
                    <Text span size="xs" c="dimmed">
                      {t('numbers.times', { count: g.count })}
                      {!botId && botName.get(g.bot_id) ? ` · ${botName.get(g.bot_id)}` : ''}
                    </Text>
                  </List.Item>
                ))}
              </List>
            )}
          </div>
        </Stack>
      ) : null}
    </Card>
  );
}
