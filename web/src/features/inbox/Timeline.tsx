import { Card, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { components } from '../../api/schema';
import { formatDateTime } from '../../format';

type Message = components['schemas']['InboxMessage'];
type Refusal = components['schemas']['InboxRefusal'];
type Entry = { kind: 'message'; item: Message } | { kind: 'refusal'; item: Refusal };

/** Messages and guard refusals in one line of time (a refusal after a message of the same instant). */
export function timelineOf(c: { messages: Message[]; refusals: Refusal[] }): Entry[] {
  const entries: Entry[] = [
    ...c.messages.map((item) => ({ kind: 'message' as const, item })),
    ...c.refusals.map((item) => ({ kind: 'refusal' as const, item })),
  ];
  return entries.sort(
    (a, b) =>
      Date.parse(a.item.created_at) - Date.parse(b.item.created_at) ||
      Number(a.kind === 'refusal') - Number(b.kind === 'refusal'),
  );
}

/** The conversation's timeline: the messages, and a quiet line for each message a channel guard refused. */
export function Timeline({ messages, refusals }: { messages: Message[]; refusals: Refusal[] }) {
  return (
    <Stack gap="xs" mb="sm" mah={420} style={{ overflowY: 'auto' }} data-testid="inbox-transcript">
      {timelineOf({ messages, refusals }).map((entry) =>
        entry.kind === 'refusal' ? (
          <RefusalLine key={entry.item.id} refusal={entry.item} />
        ) : (
          <MessageCard key={entry.item.id} message={entry.item} />
        ),
      )}
    </Stack>
  );
}

/** A message of the customer, the bot or a person of the team. */
function MessageCard({ message: m }: { message: Message }) {
  const { t, i18n } = useTranslation();
  return (
    <Card
      padding="xs"
      bg={
        m.role === 'user'
          ? 'var(--mantine-color-gray-light)'
          : m.from_person
            ? 'var(--mantine-color-blue-light)'
            : undefined
      }
      withBorder={m.role !== 'user'}
      ml={m.role === 'user' ? 0 : 'xl'}
      mr={m.role === 'user' ? 'xl' : 0}
    >
      <Text size="xs" c="dimmed">
        {m.role === 'user'
          ? t('inbox.fromCustomer')
          : m.from_person
            ? (m.author_name ?? t('inbox.fromPerson'))
            : t('inbox.fromBot')}{' '}
        · {formatDateTime(m.created_at, i18n.language)}
      </Text>
      <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
        {m.content}
      </Text>
    </Card>
  );
}

/** A message a channel guard refused: "Nicht beantwortet, weil …", with the start of the message. */
function RefusalLine({ refusal: r }: { refusal: Refusal }) {
  const { t, i18n } = useTranslation();
  const words = `inbox.refusal.reasons.${r.reason}`;
  return (
    <Stack gap={0} align="center" px="xl" data-testid="inbox-refusal">
      <Text size="xs" c="dimmed" fs="italic" ta="center">
        {i18n.exists(words)
          ? t('inbox.refusal.line', { reason: t(words) })
          : t('inbox.refusal.unknown', { reason: r.reason })}
      </Text>
      <Text size="xs" c="dimmed" ta="center" lineClamp={2} style={{ overflowWrap: 'anywhere' }}>
        {t('inbox.refusal.quote', { text: r.message_excerpt })} ·{' '}
        {t(`channels.${r.channel}`, { defaultValue: r.channel })} ·{' '}
        {formatDateTime(r.created_at, i18n.language)}
      </Text>
    </Stack>
  );
}
