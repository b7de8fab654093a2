import { Group, Progress, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { EventDetail } from '../../api/types';
import { Section } from '../../components/Section';
import { capacityShares } from './capacity';

export function Capacity({ event, pendingPlaces }: { event: EventDetail; pendingPlaces: number }) {
  const { t } = useTranslation();
  const shares = capacityShares(event.capacity_total, event.capacity_booked, pendingPlaces);
  return (
    <Section title={t('events.capacityTitle')}>
      <Progress.Root size={22}>
        <Progress.Section
          value={shares.confirmed}
          color="indigo.9"
          aria-label={t('events.sections.confirmed')}
        >
          <Progress.Label>{event.capacity_booked}</Progress.Label>
        </Progress.Section>
        <Progress.Section value={shares.pending} color="yellow.7" aria-label={t('events.sections.pending')} />
        <Progress.Section value={shares.free} color="gray.3" aria-label={t('events.sections.free')} />
      </Progress.Root>
      <Group gap="lg" mt="xs">
        <Text size="sm" data-testid="capacity-confirmed">
          {t('events.confirmedCount', { count: event.capacity_booked, total: event.capacity_total })}
        </Text>
        <Text size="sm" data-testid="capacity-free">
          {t('events.freeCount', { count: shares.freePlaces })}
        </Text>
        <Text size="sm" data-testid="capacity-waitlist">
          {t('events.waitlistCount', { count: event.capacity_waitlist })}
        </Text>
      </Group>
    </Section>
  );
}
