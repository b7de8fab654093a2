import { Alert, Card, Select, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { DAYS, parseDay } from './hours-form';
import type { WidgetSettings } from './queries';
import type { Values } from './widget-form';

/** The time zones the browser knows (one at least: the current one). */
function timeZones(current: string): string[] {
  const list =
    (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  return list.includes(current) ? list : [current, ...list];
}

/** "Montag" … "Sonntag" in the dashboard's language (1 January 2024 was a Monday). */
function dayName(day: number, language: string): string {
  return new Intl.DateTimeFormat(language, { weekday: 'long', timeZone: 'UTC' }).format(
    Date.UTC(2024, 0, day),
  );
}

/** A day's problem as the form shows it under the field; null when it reads. */
export function dayProblem(text: string, t: (key: string) => string): string | null {
  const parsed = parseDay(text);
  if ('spans' in parsed) return null;
  return parsed.problem === 'order' ? t('channels.website.hoursOrder') : t('channels.website.hoursFormat');
}

/**
 * Bots → Channels → Website: when people answer in the widget, and how their reply reaches a
 * visitor who came outside those hours (by e-mail when the service can send mail).
 */
export function BusinessHoursCard({
  form,
  replyEmail,
}: {
  form: UseFormReturnType<Values>;
  replyEmail: WidgetSettings['reply_email'];
}) {
  const { t, i18n } = useTranslation();
  const zones = useMemo(() => timeZones(form.values.time_zone), [form.values.time_zone]);
  return (
    <Card withBorder>
      <Stack>
        <Title order={3} size="h5">
          {t('channels.website.hours')}
        </Title>
        <Switch
          label={t('channels.website.hoursOn')}
          description={t('channels.website.hoursHelp')}
          {...form.getInputProps('hours_on', { type: 'checkbox' })}
        />
        {form.values.hours_on && (
          <>
            <Select
              label={t('channels.website.timeZone')}
              searchable
              allowDeselect={false}
              data={zones}
              maw={320}
              {...form.getInputProps('time_zone')}
            />
            <Text size="sm" c="dimmed">
              {t('channels.website.hoursDays')}
            </Text>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              {DAYS.map((day, index) => (
                <TextInput
                  key={day}
                  label={dayName(day, i18n.language)}
                  placeholder={t('channels.website.closed')}
                  {...form.getInputProps(`days.${index}`)}
                  error={dayProblem(form.values.days[index] ?? '', t)}
                />
              ))}
            </SimpleGrid>
          </>
        )}
        {replyEmail.enabled ? (
          <Text size="sm" data-testid="reply-email">
            {t('channels.website.replyEmailOn', { from: replyEmail.from ?? '' })}
          </Text>
        ) : (
          <Alert color="yellow" role="status" data-testid="reply-email">
            {t('channels.website.replyEmailOff')}
          </Alert>
        )}
      </Stack>
    </Card>
  );
}
