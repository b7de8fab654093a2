import { Card, Group, RingProgress, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { Suspense, lazy } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useCan } from '../../app/session';
import { useUsage } from './queries';
import { PageTitle } from '../../components/PageTitle';
import { EmptyState, ErrorAlert, Loading } from '../../components/states';
import { formatDate, formatNumber } from '../../format';
import { Numbers } from './Numbers';
import { quotaPercent } from './overview';
import { PlanCard } from './PlanCard';
import { Onboarding } from './Onboarding';

// The chart library is the largest part of this page: loaded only when there is a chart to draw.
const UsageChart = lazy(() => import('./UsageChart'));

export function OverviewPage() {
  const { t, i18n } = useTranslation();
  const canUsage = useCan('usage:view');
  const usage = useUsage(canUsage);
  if (!canUsage) return <PageTitle title={t('overview.title')} />;
  if (usage.isPending) return <Loading />;
  if (usage.error) return <ErrorAlert error={usage.error} onRetry={() => void usage.refetch()} />;
  const data = usage.data;
  const percent = quotaPercent(data);
  const lang = i18n.language;

  return (
    <>
      <PageTitle title={t('overview.title')} />
      <Stack>
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
          <PlanCard usage={data} />
          <Card withBorder>
            <Group wrap="nowrap">
              <RingProgress
                size={96}
                thickness={10}
                roundCaps
                sections={[{ value: percent ?? 0, color: (percent ?? 0) > 90 ? 'red' : 'indigo' }]}
                label={
                  <Text ta="center" size="sm" fw={700}>
                    {percent === null ? '∞' : `${percent} %`}
                  </Text>
                }
                aria-label={t('overview.quotaGauge')}
              />
              <div>
                <Text size="sm" c="dimmed">
                  {t('overview.messagesUsed')}
                </Text>
                <Text fw={700} size="xl" data-testid="messages-used">
                  {formatNumber(data.messages_used, lang)}
                </Text>
                <Text size="sm">
                  {data.messages_remaining === null
                    ? t('overview.unlimited')
                    : t('overview.remaining', {
                        count: data.messages_remaining,
                        value: formatNumber(data.messages_remaining, lang),
                      })}
                </Text>
              </div>
            </Group>
          </Card>
          <Card withBorder>
            <Text size="sm" c="dimmed">
              {t('overview.tokens')}
            </Text>
            <Text fw={700} size="xl">
              {formatNumber(data.tokens_used, lang)}
            </Text>
          </Card>
          <Card withBorder>
            <Text size="sm" c="dimmed">
              {t('overview.period')}
            </Text>
            <Text fw={700}>
              {formatDate(data.period_start, lang)} – {formatDate(data.period_end, lang)}
            </Text>
          </Card>
        </SimpleGrid>
        <Onboarding />
        <Numbers />
        <Card withBorder>
          <Title order={2} size="h4" mb="sm">
            {t('overview.perDay')}
          </Title>
          {data.per_day.some((d) => d.messages > 0) ? (
            <Suspense fallback={<Loading />}>
              <UsageChart
                data={data.per_day.map((d) => ({ ...d, day: formatDate(d.date, lang) }))}
                label={t('overview.messages')}
              />
            </Suspense>
          ) : (
            <Text c="dimmed">{t('overview.noMessages')}</Text>
          )}
        </Card>
        <Card withBorder>
          <Title order={2} size="h4" mb="sm">
            {t('overview.perBot')}
          </Title>
          {data.per_bot.length === 0 ? (
            <EmptyState
              title={t('overview.noBotsTitle')}
              text={t('overview.noBotsText')}
              action={<Link to="/bots">{t('overview.toBots')}</Link>}
            />
          ) : (
            <Table.ScrollContainer minWidth={300}>
              <Table>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('overview.bot')}</Table.Th>
                    <Table.Th ta="right">{t('overview.messages')}</Table.Th>
                    <Table.Th ta="right">{t('overview.tokens')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.per_bot.map((row) => (
                    <Table.Tr key={row.bot_id}>
                      <Table.Td>
                        <Link to={`/bots/${row.bot_id}`}>{row.name}</Link>
                      </Table.Td>
                      <Table.Td ta="right">{formatNumber(row.messages, lang)}</Table.Td>
                      <Table.Td ta="right">{formatNumber(row.tokens, lang)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </Card>
      </Stack>
    </>
  );
}
