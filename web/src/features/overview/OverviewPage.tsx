import { BarChart } from '@mantine/charts';
import {
  Badge,
  Card,
  Checkbox,
  Group,
  RingProgress,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { api, call } from '../../api/client';
import type { Usage } from '../../api/types';
import { useCan } from '../../app/session';
import { PageTitle } from '../../components/PageTitle';
import { EmptyState, ErrorAlert, Loading } from '../../components/states';
import { formatDate, formatNumber } from '../../format';

/** Share of the monthly quota used, 0–100; null for an unlimited plan. */
export function quotaPercent(usage: Pick<Usage, 'messages_used' | 'messages_quota'>): number | null {
  if (usage.messages_quota === null || usage.messages_quota <= 0) return null;
  return Math.min(100, Math.round((usage.messages_used / usage.messages_quota) * 100));
}

function Onboarding() {
  const { t } = useTranslation();
  const onboarding = useQuery({
    queryKey: ['knowledge-onboarding'],
    queryFn: () => call(api.GET('/api/knowledge/onboarding')),
  });
  if (!onboarding.data || onboarding.data.complete) return null;
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        {t('overview.onboarding')}
      </Title>
      <Stack gap={6}>
        {onboarding.data.steps.map((step) => (
          <Checkbox key={step.key} label={step.label} checked={step.done} readOnly />
        ))}
      </Stack>
    </Card>
  );
}

export function OverviewPage() {
  const { t, i18n } = useTranslation();
  const canUsage = useCan('usage:view');
  const usage = useQuery({
    queryKey: ['usage'],
    queryFn: () => call(api.GET('/api/usage')),
    enabled: canUsage,
  });
  if (!canUsage) return <PageTitle title={t('overview.title')} />;
  if (usage.isPending) return <Loading />;
  if (usage.error) return <ErrorAlert error={usage.error} onRetry={() => void usage.refetch()} />;
  const data = usage.data;
  const percent = quotaPercent(data);
  const lang = i18n.language;

  return (
    <>
      <PageTitle title={t('overview.title')}>
        <Badge size="lg" variant="light">
          {t('overview.plan', { plan: data.plan_id })}
        </Badge>
      </PageTitle>
      <Stack>
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
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
        <Card withBorder>
          <Title order={2} size="h4" mb="sm">
            {t('overview.perDay')}
          </Title>
          {data.per_day.some((d) => d.messages > 0) ? (
            <BarChart
              h={220}
              data={data.per_day.map((d) => ({ ...d, day: formatDate(d.date, lang) }))}
              dataKey="day"
              series={[{ name: 'messages', label: t('overview.messages'), color: 'indigo.8' }]}
            />
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
            <Table.ScrollContainer minWidth={360}>
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
