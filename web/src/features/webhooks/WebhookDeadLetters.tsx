import { Button, Card, Code, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Ok } from '../../api/types';
import { notify } from '../../components/notify';
import { EmptyState, ErrorAlert, Loading } from '../../components/states';
import { formatDateTime } from '../../format';
import { useDeadLetters, useResend } from './queries';

type DeadMessage = Ok<'/api/outbox/dead', 'get'>['data'][number];

/** What a dead message refers to, for people: the webhook delivery id, else its payload. */
export function deadSubject(message: Pick<DeadMessage, 'payload'>): string {
  const payload = message.payload as Record<string, unknown> | null;
  if (payload && typeof payload.delivery_id === 'string') return payload.delivery_id;
  return JSON.stringify(payload);
}

/** Webhook deliveries that ran out of attempts or were refused for good, with "send again". */
export function WebhookDeadLetters() {
  const { t, i18n } = useTranslation();
  const dead = useDeadLetters();
  const resend = useResend();
  const lang = i18n.language;
  return (
    <Card withBorder data-testid="dead-letters">
      <Title order={2} size="h4">
        {t('deadLetters.title')}
      </Title>
      <Text size="sm" c="dimmed" mb="xs">
        {t('deadLetters.help')}
      </Text>
      {resend.error && <ErrorAlert error={resend.error} />}
      {dead.isPending ? (
        <Loading />
      ) : dead.error ? (
        <ErrorAlert error={dead.error} onRetry={() => void dead.refetch()} />
      ) : dead.data.data.length === 0 ? (
        <EmptyState title={t('deadLetters.emptyTitle')} text={t('deadLetters.emptyText')} />
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('deadLetters.delivery')}</Table.Th>
                <Table.Th>{t('deadLetters.reason')}</Table.Th>
                <Table.Th ta="right">{t('deliveries.attempts')}</Table.Th>
                <Table.Th>{t('deadLetters.deadAt')}</Table.Th>
                <Table.Th>{t('common.actions')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {dead.data.data.map((m) => (
                <Table.Tr key={m.id} data-testid="dead-letter-row">
                  <Table.Td>
                    <Code>{deadSubject(m)}</Code>
                  </Table.Td>
                  <Table.Td style={{ wordBreak: 'break-word' }}>
                    {m.reason ?? (m.last_status_code ? `HTTP ${m.last_status_code}` : '—')}
                  </Table.Td>
                  <Table.Td ta="right">{m.attempts}</Table.Td>
                  <Table.Td>{m.dead_at ? formatDateTime(m.dead_at, lang) : '—'}</Table.Td>
                  <Table.Td>
                    <Button
                      size="compact-xs"
                      variant="light"
                      loading={resend.isPending && resend.variables === m.id}
                      aria-label={t('deadLetters.resendOf', { id: deadSubject(m) })}
                      onClick={() =>
                        resend.mutate(m.id, { onSuccess: () => notify(t('deadLetters.resent')) })
                      }
                    >
                      {t('deliveries.redeliver')}
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Card>
  );
}
