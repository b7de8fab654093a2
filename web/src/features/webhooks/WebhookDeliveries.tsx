import { Badge, Button, Card, Group, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Webhook } from '../../api/types';
import { notify } from '../../components/notify';
import { EmptyState, ErrorAlert } from '../../components/states';
import { formatDateTime } from '../../format';
import { DataTable } from '../../components/DataTable';
import { eventTypeLabel } from './event-types';
import { useDeliveries, useRedeliver, type Delivery, type DeliveryStatus } from './queries';
import { Attempts } from './Attempts';

export type { DeliveryStatus };

export const DELIVERY_STATUS_COLOUR: Record<DeliveryStatus, string> = {
  pending: 'yellow',
  delivering: 'blue',
  succeeded: 'green',
  failed: 'red',
};

/** What the log says about a delivery's next step: a retry time, done, or given up. */
export function nextStep(delivery: Pick<Delivery, 'status' | 'next_attempt_at'>): 'retry' | 'done' | 'none' {
  if (delivery.status === 'succeeded') return 'done';
  if ((delivery.status === 'pending' || delivery.status === 'delivering') && delivery.next_attempt_at)
    return 'retry';
  return 'none';
}

/** The delivery log of one endpoint: every event sent, its attempts, and redelivery. */
export function WebhookDeliveries({ endpoint }: { endpoint: Webhook }) {
  const { t, i18n } = useTranslation();
  const [status, setStatus] = useState<DeliveryStatus | null>(null);
  const [shown, setShown] = useState<Delivery | null>(null);
  const deliveries = useDeliveries(endpoint.id, status);
  const redeliver = useRedeliver(endpoint.id);
  const lang = i18n.language;
  return (
    <Card withBorder data-testid="delivery-log">
      <Group justify="space-between" mb="xs" align="flex-end">
        <div>
          <Title order={2} size="h4">
            {t('deliveries.title')}
          </Title>
          <Text size="sm" c="dimmed" style={{ wordBreak: 'break-all' }}>
            {endpoint.url}
          </Text>
        </div>
        <Group gap="xs" align="flex-end">
          <Select
            label={t('deliveries.status')}
            size="xs"
            w={160}
            clearable
            placeholder={t('deliveries.allStates')}
            value={status}
            onChange={(value) => setStatus(value as DeliveryStatus | null)}
            data={(['pending', 'delivering', 'succeeded', 'failed'] as const).map((s) => ({
              value: s,
              label: t(`deliveries.statuses.${s}`),
            }))}
          />
          <Button size="xs" variant="default" onClick={() => void deliveries.refetch()}>
            {t('deliveries.refresh')}
          </Button>
        </Group>
      </Group>
      {redeliver.error && <ErrorAlert error={redeliver.error} />}
      <DataTable
        query={deliveries}
        isEmpty={deliveries.data?.data.length === 0}
        empty={<EmptyState title={t('deliveries.emptyTitle')} text={t('deliveries.emptyText')} />}
        columns={[
          t('deliveries.event'),
          t('deliveries.status'),
          { label: t('deliveries.attempts'), align: 'right' as const },
          t('deliveries.responseCode'),
          t('deliveries.time'),
          t('deliveries.nextRetry'),
          t('common.actions'),
        ]}
        minWidth={720}
      >
        {deliveries.data?.data.map((d) => {
          const next = nextStep(d);
          return (
            <Table.Tr key={d.id} data-testid="delivery-row">
              <Table.Td>
                <Text size="sm" title={d.event_type}>
                  {eventTypeLabel(t, d.event_type)}
                </Text>
                {d.last_error && (
                  <Text size="xs" c="dimmed" lineClamp={2}>
                    {d.last_error}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <Badge color={DELIVERY_STATUS_COLOUR[d.status]}>{t(`deliveries.statuses.${d.status}`)}</Badge>
              </Table.Td>
              <Table.Td ta="right">{d.attempts}</Table.Td>
              <Table.Td>{d.last_status_code ?? '—'}</Table.Td>
              <Table.Td>{formatDateTime(d.delivered_at ?? d.updated_at, lang)}</Table.Td>
              <Table.Td>
                {next === 'retry'
                  ? formatDateTime(d.next_attempt_at, lang)
                  : next === 'done'
                    ? t('deliveries.delivered')
                    : '—'}
              </Table.Td>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  <Button size="compact-xs" variant="subtle" onClick={() => setShown(d)}>
                    {t('deliveries.showAttempts')}
                  </Button>
                  <Button
                    size="compact-xs"
                    variant="light"
                    loading={redeliver.isPending && redeliver.variables === d.id}
                    aria-label={t('deliveries.redeliverOf', { type: eventTypeLabel(t, d.event_type) })}
                    onClick={() =>
                      redeliver.mutate(d.id, { onSuccess: () => notify(t('deliveries.redelivered')) })
                    }
                  >
                    {t('deliveries.redeliver')}
                  </Button>
                </Group>
              </Table.Td>
            </Table.Tr>
          );
        })}
      </DataTable>
      {shown && <Attempts endpointId={endpoint.id} delivery={shown} onClose={() => setShown(null)} />}
      <Stack gap={0} mt="xs">
        <Text size="xs" c="dimmed">
          {t('deliveries.help')}
        </Text>
      </Stack>
    </Card>
  );
}
