import { Anchor, Checkbox, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useBots } from '../bots/queries';
import { useKnowledgeOnboarding } from './queries';
import { Section } from '../../components/Section';
import { onboardingLink } from './overview';

export function Onboarding() {
  const { t } = useTranslation();
  const onboarding = useKnowledgeOnboarding();
  const bots = useBots();
  if (!onboarding.data || onboarding.data.complete) return null;
  const firstBot = bots.data?.data[0]?.id;
  return (
    <Section title={t('overview.onboarding')}>
      <Stack gap={6}>
        {onboarding.data.steps.map((step) => (
          <Checkbox
            key={step.key}
            label={
              <Anchor component={Link} to={onboardingLink(step.key, firstBot)} size="sm">
                {t(`overview.onboardingSteps.${step.key}`, { defaultValue: step.label })}
              </Anchor>
            }
            checked={step.done}
            readOnly
          />
        ))}
      </Stack>
    </Section>
  );
}
