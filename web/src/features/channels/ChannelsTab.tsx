import { SegmentedControl, Stack } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useBotId } from '../bots/BotPage';
import { EmailChannel } from './EmailChannel';

const PARTS = ['email'] as const;
type Part = (typeof PARTS)[number];

/** Bot → Channels: where the bot answers besides the API (one part per channel). */
export function ChannelsTab() {
  const { t } = useTranslation();
  const botId = useBotId();
  const [part, setPart] = useState<Part>('email');
  return (
    <Stack>
      <SegmentedControl
        aria-label={t('bot.channelParts')}
        value={part}
        onChange={(value) => setPart(value as Part)}
        data={PARTS.map((p) => ({ value: p, label: t(`channels.${p}`) }))}
        style={{ alignSelf: 'flex-start' }}
      />
      {part === 'email' && <EmailChannel botId={botId} />}
    </Stack>
  );
}
