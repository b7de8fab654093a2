import { SegmentedControl, Stack } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useBotId } from '../bots/BotPage';
import { EmailChannel } from './EmailChannel';
import { WebsiteChannel } from './WebsiteChannel';

type Part = 'website' | 'email';

/** Bot → Channels: where the bot answers besides the API, one part per channel (Website first). */
export function ChannelsTab() {
  const { t } = useTranslation();
  const botId = useBotId();
  const [part, setPart] = useState<Part>('website');
  const PARTS: { value: Part; label: string; element: ReactNode }[] = [
    { value: 'website', label: t('channels.parts.website'), element: <WebsiteChannel botId={botId} /> },
    { value: 'email', label: t('channels.email'), element: <EmailChannel botId={botId} /> },
  ];
  const current = PARTS.find((p) => p.value === part) ?? PARTS[0]!;
  return (
    <Stack>
      <SegmentedControl
        aria-label={t('bot.channelParts')}
        value={current.value}
        onChange={(value) => setPart(value as Part)}
        data={PARTS.map(({ value, label }) => ({ value, label }))}
        style={{ alignSelf: 'flex-start' }}
      />
      {current.element}
    </Stack>
  );
}
