import { useTranslation } from 'react-i18next';
import type { GoLive } from './queries';

export type Item = GoLive['items'][number];

export function ItemText({ item }: { item: Item }) {
  const { t } = useTranslation();
  const label = t(`bot.golive.items.${item.key}`);
  if (item.key === 'channel' && item.done && item.channels?.length) {
    return (
      <>
        {label}: {item.channels.map((c) => t(`bot.golive.channels.${c}`)).join(', ')}
      </>
    );
  }
  return <>{label}</>;
}
