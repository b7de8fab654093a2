import { Code, Modal, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../format';
import { DataTable } from '../../components/DataTable';
import { eventTypeLabel } from './event-types';
import { useDelivery, type Delivery } from './queries';

export function Attempts({
  endpointId,
  delivery,
  onClose,
}: {
  endpointId: string;
  delivery: Delivery;
  onClose: () => void;
}) {
  const { t, i18n } = useTranslation();
  const detail = useDelivery(endpointId, delivery.id);
  return (
    <Modal
      opened
      onClose={onClose}
      title={t('deliveries.attemptsOf', { type: eventTypeLabel(t, delivery.event_type) })}
      size="lg"
    >
      <DataTable
        query={detail}
        isEmpty={detail.data?.attempts.length === 0}
        empty={<Text c="dimmed">{t('deliveries.noAttempts')}</Text>}
        columns={[
          { label: '#' },
          t('deliveries.time'),
          t('deliveries.responseCode'),
          t('deliveries.duration'),
          t('deliveries.error'),
        ]}
        minWidth={480}
        data-testid="delivery-attempts"
      >
        {detail.data?.attempts.map((a) => (
          <Table.Tr key={a.attempt_number}>
            <Table.Td>{a.attempt_number}</Table.Td>
            <Table.Td>{formatDateTime(a.created_at, i18n.language)}</Table.Td>
            <Table.Td>{a.status_code ?? '—'}</Table.Td>
            <Table.Td>{a.duration_ms} ms</Table.Td>
            <Table.Td style={{ wordBreak: 'break-word' }}>{a.error ?? '—'}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      {detail.data && (
        <>
          <Text size="sm" fw={600} mt="md">
            {t('deliveries.payload')}
          </Text>
          <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
            {JSON.stringify(detail.data.payload, null, 2)}
          </Code>
        </>
      )}
    </Modal>
  );
}
