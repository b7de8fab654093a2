import { Anchor, Card, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { components } from '../../api/schema';
import { formatDateTime } from '../../format';

type Visitor = components['schemas']['InboxVisitor'];

/** Who the customer is: verified name and e-mail, their page, language, device, earlier conversations. */
export function VisitorPanel({ visitor }: { visitor: Visitor }) {
  const { t, i18n } = useTranslation();
  const rows: [string, string | null][] = [
    [t('inbox.visitor.name'), visitor.name],
    [t('inbox.visitor.email'), visitor.email],
    [t('inbox.visitor.language'), visitor.language],
    [t('inbox.visitor.device'), visitor.device],
  ];
  const known = rows.filter(([, value]) => value);
  if (known.length === 0 && !visitor.page_url && visitor.earlier_conversations.length === 0) return null;
  return (
    <Card withBorder padding="xs" mb="sm" data-testid="inbox-visitor">
      <Text size="sm" fw={600}>
        {t('inbox.visitor.title')}
        {visitor.verified ? ` · ${t('inbox.visitor.verified')}` : ''}
      </Text>
      <Stack gap={2}>
        {known.map(([label, value]) => (
          <Text key={label} size="sm" style={{ overflowWrap: 'anywhere' }}>
            {label}: {value}
          </Text>
        ))}
        {visitor.page_url && (
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {t('inbox.visitor.page')}:{' '}
            <Anchor href={visitor.page_url} target="_blank" rel="noreferrer">
              {visitor.page_title || visitor.page_url}
            </Anchor>
          </Text>
        )}
        {visitor.earlier_conversations.length > 0 && (
          <Text size="sm">
            {t('inbox.visitor.earlier')}:{' '}
            {visitor.earlier_conversations
              .map(
                (c) =>
                  `${formatDateTime(c.created_at, i18n.language)} (${t(`channels.${c.channel}`, { defaultValue: c.channel })})`,
              )
              .join(', ')}
          </Text>
        )}
      </Stack>
    </Card>
  );
}
