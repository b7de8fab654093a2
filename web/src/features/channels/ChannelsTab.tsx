import { SegmentedControl, Stack } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useBotId } from '../bots/BotPage';
import { WebsiteChannel } from './WebsiteChannel';

type Part = 'website';

/**
 * Bots → Channels: one part per channel, chosen with a segmented control. Website is the first;
 * further channels (e-mail) add their part to PARTS.
 */
export function ChannelsTab() {
  const { t } = useTranslation();
  const botId = useBotId();
  const [part, setPart] = useState<Part>('website');
  const PARTS: { value: Part; label: string; element: ReactNode }[] = [
    { value: 'website', label: t('channels.parts.website'), element: <WebsiteChannel botId={botId} /> },
    // E-mail: { value: 'email', label: t('channels.parts.email'), element: <EmailChannel botId={botId} /> },
  ];
  const current = PARTS.find((p) => p.value === part) ?? PARTS[0]!;
  return (
    <Stack>
      <SegmentedControl
        aria-label={t('channels.parts.label')}
        value={current.value}
        onChange={(value) => setPart(value as Part)}
        data={PARTS.map(({ value, label }) => ({ value, label }))}
        style={{ alignSelf: 'flex-start' }}
      />
      {current.element}
    </Stack>
  );
}
