import { Badge, Button, Group, MultiSelect, Stack, Table, TextInput, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { WEBHOOK_EVENT_TYPES } from '@server/modules/webhooks/event-types.js';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { WebhookBody } from '../../api/types';
import { useCan } from '../../app/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { SecretOnce } from '../../components/SecretOnce';
import { EmptyState, ErrorAlert, Loading } from '../../components/states';
import { WebhookDeadLetters } from './WebhookDeadLetters';
import { WebhookDeliveries } from './WebhookDeliveries';
import { useUnsavedChanges } from '../../components/unsaved-changes';
import { DataTable } from '../../components/DataTable';
import { eventTypeLabel } from './event-types';
import { Section } from '../../components/Section';
import { FormActions } from '../../components/FormActions';
import { useCreateWebhook, useDeleteWebhook, useRotateWebhookSecret, useWebhooks } from './queries';

export function WebhooksPage() {
  const { t } = useTranslation();
  const canManage = useCan('webhook:manage');
  const [secret, setSecret] = useState<string | null>(null);
  const [logOf, setLogOf] = useState<string | null>(null);
  const hooks = useWebhooks(canManage);
  const form = useForm({
    initialValues: { url: '', event_types: [] as string[] },
    validate: {
      url: (v) => (/^https?:\/\/\S+$/.test(v.trim()) ? null : t('webhooks.urlInvalid')),
      event_types: (v) => (v.length > 0 ? null : t('webhooks.typesRequired')),
    },
  });
  const create = useCreateWebhook();
  const submit = (values: typeof form.values) =>
    create.mutate(
      { url: values.url.trim(), event_types: values.event_types as WebhookBody['event_types'] },
      {
        onSuccess: (result) => {
          setSecret(result.secret);
          form.reset();
        },
      },
    );
  const rotate = useRotateWebhookSecret();
  const onRotate = (id: string) => rotate.mutate(id, { onSuccess: (result) => setSecret(result.secret) });
  const remove = useDeleteWebhook();
  // No saving on the way out: the new webhook's secret is shown once, here.
  useUnsavedChanges({ dirty: () => form.isDirty(), discard: () => form.reset() });
  if (!canManage) return <EmptyState title={t('settings.tabs.webhooks')} text={t('errors.noPermission')} />;
  if (hooks.isPending) return <Loading />;
  if (hooks.error) return <ErrorAlert error={hooks.error} />;

  return (
    <Stack>
      {secret && <SecretOnce label={t('webhooks.secret')} secret={secret} onDone={() => setSecret(null)} />}
      <Section title={t('webhooks.add')}>
        <form onSubmit={form.onSubmit(submit)} noValidate>
          <Stack>
            {create.error && <ErrorAlert error={create.error} />}
            <TextInput
              label={t('webhooks.url')}
              required
              placeholder="https://"
              {...form.getInputProps('url')}
            />
            <MultiSelect
              label={t('webhooks.types')}
              required
              data={WEBHOOK_EVENT_TYPES.map((type) => ({ value: type, label: eventTypeLabel(t, type) }))}
              {...form.getInputProps('event_types')}
            />
            <FormActions start pending={create.isPending} submit={t('webhooks.addSubmit')} />
          </Stack>
        </form>
      </Section>
      <Section title={t('webhooks.list')}>
        {(rotate.error || remove.error) && <ErrorAlert error={rotate.error ?? remove.error} />}
        {hooks.data.data.length === 0 ? (
          <Text c="dimmed">{t('webhooks.none')}</Text>
        ) : (
          <DataTable columns={[t('webhooks.url'), t('webhooks.types'), t('common.actions')]} minWidth={560}>
            {hooks.data.data.map((hook) => (
              <Table.Tr key={hook.id}>
                <Table.Td style={{ wordBreak: 'break-all' }}>{hook.url}</Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    {hook.event_types.map((type) => (
                      <Badge key={type} size="xs" variant="light" title={type}>
                        {eventTypeLabel(t, type)}
                      </Badge>
                    ))}
                  </Group>
                </Table.Td>
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    <Button
                      size="compact-xs"
                      variant={logOf === hook.id ? 'filled' : 'default'}
                      aria-pressed={logOf === hook.id}
                      onClick={() => setLogOf(logOf === hook.id ? null : hook.id)}
                    >
                      {t('deliveries.open')}
                    </Button>
                    <ConfirmButton
                      variant="light"
                      danger={false}
                      title={t('webhooks.rotate')}
                      text={t('webhooks.rotateConfirm')}
                      onConfirm={() => onRotate(hook.id)}
                    >
                      {t('webhooks.rotate')}
                    </ConfirmButton>
                    <ConfirmButton
                      title={t('webhooks.delete')}
                      text={t('webhooks.deleteConfirm', { url: hook.url })}
                      onConfirm={() => remove.mutate(hook.id)}
                    />
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </DataTable>
        )}
      </Section>
      {(() => {
        const endpoint = hooks.data.data.find((h) => h.id === logOf);
        return endpoint ? <WebhookDeliveries key={endpoint.id} endpoint={endpoint} /> : null;
      })()}
      <WebhookDeadLetters />
    </Stack>
  );
}
