import { Badge, Card, Group, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Usage } from '../../api/types';
import { formatDate } from '../../format';
import { trialDaysLeft } from './overview';

export function PlanCard({ usage }: { usage: Usage }) {
  const { t, i18n } = useTranslation();
  const days = usage.subscription_status === 'trial' ? trialDaysLeft(usage.trial_ends_at) : null;
  return (
    <Card withBorder data-testid="plan">
      <Text size="sm" c="dimmed">
        {t('overview.planTitle')}
      </Text>
      <Group gap="xs" mt={4}>
        <Text fw={700} size="lg">
          {t(`overview.plans.${usage.plan_id}`, { defaultValue: usage.plan_id })}
        </Text>
        {usage.subscription_status && (
          <Badge
            color={
              usage.subscription_status === 'active'
                ? 'green'
                : usage.subscription_status === 'trial'
                  ? 'indigo'
                  : 'red'
            }
          >
            {t(`overview.subscription.${usage.subscription_status}`)}
          </Badge>
        )}
      </Group>
      {usage.trial_ends_at && days !== null && (
        <Text size="sm" mt={4} c={days <= 3 ? 'red.9' : undefined} data-testid="trial-end">
          {days >= 0
            ? t('overview.trialEnds', { date: formatDate(usage.trial_ends_at, i18n.language), count: days })
            : t('overview.trialEnded', { date: formatDate(usage.trial_ends_at, i18n.language) })}
        </Text>
      )}
    </Card>
  );
}
