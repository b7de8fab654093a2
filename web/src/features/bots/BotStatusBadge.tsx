import { Badge } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Bot } from '../../api/types';

export function BotStatusBadge({ bot }: { bot: Pick<Bot, 'is_active' | 'status'> }) {
  const { t } = useTranslation();
  const on = bot.is_active && bot.status !== 'disabled';
  return (
    <Badge color={on ? 'green' : 'gray'} variant="light">
      {on ? t('bots.active') : t(`bots.status.${bot.status}`)}
    </Badge>
  );
}
