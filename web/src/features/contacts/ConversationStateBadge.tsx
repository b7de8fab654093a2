import { Badge } from '@mantine/core';
import { useTranslation } from 'react-i18next';

const COLOUR: Record<string, string> = { active: 'green', handed_over: 'orange' };

/** A conversation's state in the contact's lists. */
export function ConversationStateBadge({ status }: { status: string }) {
  const { t } = useTranslation();
  return (
    <Badge color={COLOUR[status] ?? 'gray'}>
      {t(`conversations.statuses.${status}`, { defaultValue: status })}
    </Badge>
  );
}
