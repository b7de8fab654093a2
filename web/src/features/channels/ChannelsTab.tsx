import { SegmentedControl, Stack } from '@mantine/core';
import { type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useBotId } from '../bots/BotPage';
import { EmailChannel } from './EmailChannel';
import { PhoneChannels } from './PhoneChannels';
import { WebsiteChannel } from './WebsiteChannel';

type Part = 'website' | 'email' | 'phone';

/**
 * Bot → Channels: where the bot answers besides the API, one part per channel (Website first).
 * The part shown is in the address (`?part=email`), so a link can lead to it.
 */
export function ChannelsTab() {
  const { t } = useTranslation();
  const botId = useBotId();
  const [params, setParams] = useSearchParams();
  const part = params.get('part');
  const PARTS: { value: Part; label: string; element: ReactNode }[] = [
    { value: 'website', label: t('channels.parts.website'), element: <WebsiteChannel botId={botId} /> },
    { value: 'email', label: t('channels.parts.email'), element: <EmailChannel botId={botId} /> },
    { value: 'phone', label: t('channels.parts.phone'), element: <PhoneChannels botId={botId} /> },
  ];
  const current = PARTS.find((p) => p.value === part) ?? PARTS[0]!;
  return (
    <Stack>
      <SegmentedControl
        aria-label={t('bot.channelParts')}
        value={current.value}
        onChange={(value) => setParams({ part: value }, { replace: true })}
        data={PARTS.map(({ value, label }) => ({ value, label }))}
        style={{ alignSelf: 'flex-start' }}
      />
      {current.element}
    </Stack>
  );
}
