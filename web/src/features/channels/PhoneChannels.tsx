import {
  Badge,
  Button,
  Card,
  Fieldset,
  Group,
  Modal,
  NumberInput,
  PasswordInput,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCan } from '../../app/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { EmptyState, ErrorAlert, Loading } from '../../components/states';
import { notify } from '../../components/notify';
import { useFormUnsavedChanges } from '../../components/unsaved-changes';
import { formatDateTime } from '../../format';
import { CopyBlock } from './CopyBlock';
import { parseDay } from './hours-form';
import {
  useConnections,
  useDeleteConnection,
  useSaveConnection,
  type Connection,
  type ConnectionBody,
} from './connection-queries';
import { ConnectionTemplates } from './ConnectionTemplates';

const KINDS = ['whatsapp_cloud', 'twilio_whatsapp', 'twilio_sms', 'twilio_voice'] as const;
type Kind = (typeof KINDS)[number];
const E164 = /^\+[1-9][0-9]{6,14}$/;

interface FormValues {
  kind: Kind;
  name: string;
  is_active: boolean;
  phone_number_id: string;
  business_account_id: string;
  access_token: string;
  app_secret: string;
  verify_token: string;
  account_sid: string;
  auth_token: string;
  from_number: string;
  phone_number: string;
  handoff_number: string;
  mode: 'relay' | 'gather';
  public_base_url: string;
  quiet_window_ms: number | string;
  language: 'de' | 'en' | 'fr' | 'it';
  greeting: string;
  max_call_seconds: number | string;
  calls_per_caller_per_hour: number | string;
  time_zone: string;
  /** Per weekday its spans as typed: "09:00-12:00, 13:00-17:30"; empty: closed. */
  hours: Record<Weekday, string>;
}

const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
type Weekday = (typeof WEEKDAYS)[number];
/** A day's spans as the API takes them ("HH:MM-HH:MM"); the text is read as the business hours' form reads it. */
const spansOf = (text: string) => {
  const parsed = parseDay(text);
  return 'spans' in parsed ? parsed.spans.map((s) => `${s.open}-${s.close}`) : [];
};

function initialValues(connection?: Connection): FormValues {
  return {
    kind: (connection?.kind as Kind | undefined) ?? 'whatsapp_cloud',
    name: connection?.name ?? '',
    is_active: connection?.is_active ?? true,
    phone_number_id: connection?.phone_number_id ?? '',
    business_account_id: connection?.business_account_id ?? '',
    access_token: '',
    app_secret: '',
    verify_token: '',
    account_sid: connection?.account_sid ?? '',
    auth_token: '',
    from_number: connection?.from_number ?? '',
    phone_number: connection?.phone_number ?? '',
    handoff_number: connection?.handoff_number ?? '',
    mode: connection?.mode === 'gather' ? 'gather' : 'relay',
    public_base_url: connection?.public_base_url ?? '',
    quiet_window_ms: connection?.quiet_window_ms ?? 1500,
    language: (connection?.language as FormValues['language'] | null) ?? 'de',
    greeting: connection?.greeting ?? '',
    max_call_seconds: connection?.max_call_seconds ?? 600,
    calls_per_caller_per_hour: connection?.calls_per_caller_per_hour ?? 5,
    time_zone: connection?.opening_hours?.time_zone ?? '',
    hours: Object.fromEntries(
      WEEKDAYS.map((day) => [day, (connection?.opening_hours?.days[day] ?? []).join(', ')]),
    ) as Record<Weekday, string>,
  };
}

/** Opening hours from the form: none without a time zone (a person is always reachable). */
function openingHoursOf(v: FormValues): ConnectionBody['opening_hours'] {
  if (!v.time_zone.trim()) return null;
  const days: Partial<Record<Weekday, string[]>> = {};
  for (const day of WEEKDAYS) {
    const spans = spansOf(v.hours[day]);
    if (spans.length > 0) days[day] = spans;
  }
  return { time_zone: v.time_zone.trim(), days };
}

/** The request body: the kind's fields only, secrets only when typed (they are write-only). */
function bodyOf(v: FormValues, editing: boolean): ConnectionBody {
  const text = (value: string) => value.trim() || undefined;
  const secret = (value: string) => value || undefined;
  const byKind: Record<Kind, Partial<ConnectionBody>> = {
    whatsapp_cloud: {
      phone_number_id: text(v.phone_number_id),
      business_account_id: text(v.business_account_id),
      access_token: secret(v.access_token),
      app_secret: secret(v.app_secret),
      verify_token: secret(v.verify_token),
    },
    twilio_whatsapp: {
      account_sid: text(v.account_sid),
      auth_token: secret(v.auth_token),
      from_number: text(v.from_number),
    },
    twilio_sms: {
      account_sid: text(v.account_sid),
      auth_token: secret(v.auth_token),
      from_number: text(v.from_number),
    },
    twilio_voice: {
      account_sid: text(v.account_sid),
      auth_token: secret(v.auth_token),
      phone_number: text(v.phone_number),
      handoff_number: text(v.handoff_number) ?? (editing ? null : undefined),
      mode: v.mode,
      language: v.language,
      greeting: text(v.greeting) ?? (editing ? null : undefined),
      opening_hours: openingHoursOf(v),
      max_call_seconds: v.max_call_seconds === '' ? undefined : Number(v.max_call_seconds),
      calls_per_caller_per_hour:
        v.calls_per_caller_per_hour === '' ? undefined : Number(v.calls_per_caller_per_hour),
    },
  };
  const body: ConnectionBody = {
    kind: v.kind,
    name: v.name.trim(),
    ...byKind[v.kind],
    public_base_url: text(v.public_base_url) ?? (editing ? null : undefined),
  };
  if (v.kind !== 'twilio_voice' && v.quiet_window_ms !== '') body.quiet_window_ms = Number(v.quiet_window_ms);
  if (editing) body.is_active = v.is_active;
  for (const key of Object.keys(body) as (keyof ConnectionBody)[])
    if (body[key] === undefined) delete body[key];
  return body;
}

function ConnectionForm({
  botId,
  connection,
  onClose,
}: {
  botId: string;
  connection?: Connection;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const save = useSaveConnection(botId);
  const editing = Boolean(connection);
  const number = (v: string) => (E164.test(v.trim()) ? null : t('connections.numberInvalid'));
  const form = useForm<FormValues>({
    initialValues: initialValues(connection),
    validate: {
      name: (v) => (v.trim() ? null : t('connections.required')),
      from_number: (v, all) =>
        all.kind === 'twilio_sms' || all.kind === 'twilio_whatsapp' ? number(v) : null,
      phone_number: (v, all) => (all.kind === 'twilio_voice' ? number(v) : null),
      handoff_number: (v, all) => (all.kind === 'twilio_voice' && v.trim() ? number(v) : null),
      hours: Object.fromEntries(
        WEEKDAYS.map((day) => [
          day,
          (v: string) => ('spans' in parseDay(v) ? null : t('connections.hoursInvalid')),
        ]),
      ),
    },
  });
  const v = form.values;
  const secretField = (name: 'access_token' | 'app_secret' | 'verify_token' | 'auth_token') => (
    <PasswordInput
      label={t(`connections.fields.${name}`)}
      description={
        editing && connection?.secrets_set.includes(name) ? t('connections.secretKept') : undefined
      }
      autoComplete="new-password"
      {...form.getInputProps(name)}
    />
  );
  const variables = (values: FormValues) => {
    const body = bodyOf(values, editing);
    const { kind: _kind, ...patch } = body;
    return connection ? { id: connection.id, patch } : { body };
  };
  const saved = {
    onSuccess: () => {
      notify(t('connections.saved'));
      onClose();
    },
  };
  const submit = (values: FormValues) => save.mutate(variables(values), saved);
  useFormUnsavedChanges(form, (values) => save.mutateAsync(variables(values), saved));
  return (
    <Modal opened onClose={onClose} title={editing ? t('connections.edit') : t('connections.add')} size="lg">
      <form onSubmit={form.onSubmit(submit)} noValidate>
        <Stack>
          {save.error && <ErrorAlert error={save.error} />}
          {!editing && (
            <Select
              label={t('connections.kind')}
              allowDeselect={false}
              data={KINDS.map((kind) => ({ value: kind, label: t(`connections.kinds.${kind}`) }))}
              {...form.getInputProps('kind')}
            />
          )}
          <TextInput label={t('connections.name')} required data-autofocus {...form.getInputProps('name')} />
          {v.kind === 'whatsapp_cloud' ? (
            <>
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <TextInput
                  label={t('connections.fields.phone_number_id')}
                  {...form.getInputProps('phone_number_id')}
                />
                <TextInput
                  label={t('connections.fields.business_account_id')}
                  {...form.getInputProps('business_account_id')}
                />
              </SimpleGrid>
              {secretField('access_token')}
              {secretField('app_secret')}
              {secretField('verify_token')}
            </>
          ) : (
            <>
              <TextInput
                label={t('connections.fields.account_sid')}
                placeholder="AC…"
                {...form.getInputProps('account_sid')}
              />
              {secretField('auth_token')}
            </>
          )}
          {(v.kind === 'twilio_sms' || v.kind === 'twilio_whatsapp') && (
            <TextInput
              label={t('connections.fields.from_number')}
              placeholder="+4930123456"
              {...form.getInputProps('from_number')}
            />
          )}
          {v.kind === 'twilio_voice' && (
            <>
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <TextInput
                  label={t('connections.fields.phone_number')}
                  placeholder="+4930123456"
                  {...form.getInputProps('phone_number')}
                />
                <TextInput
                  label={t('connections.fields.handoff_number')}
                  description={t('connections.handoffHint')}
                  {...form.getInputProps('handoff_number')}
                />
              </SimpleGrid>
              <Select
                label={t('connections.fields.mode')}
                allowDeselect={false}
                data={(['relay', 'gather'] as const).map((mode) => ({
                  value: mode,
                  label: t(`connections.modes.${mode}`),
                }))}
                {...form.getInputProps('mode')}
              />
              <Select
                label={t('connections.fields.language')}
                allowDeselect={false}
                data={(['de', 'en', 'fr', 'it'] as const).map((lang) => ({
                  value: lang,
                  label: t(`connections.languages.${lang}`),
                }))}
                {...form.getInputProps('language')}
              />
              <Textarea
                label={t('connections.fields.greeting')}
                description={t('connections.greetingHint')}
                autosize
                minRows={2}
                maxLength={500}
                {...form.getInputProps('greeting')}
              />
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <NumberInput
                  label={t('connections.fields.max_call_seconds')}
                  min={60}
                  max={3600}
                  {...form.getInputProps('max_call_seconds')}
                />
                <NumberInput
                  label={t('connections.fields.calls_per_caller_per_hour')}
                  min={1}
                  max={1000}
                  {...form.getInputProps('calls_per_caller_per_hour')}
                />
              </SimpleGrid>
              <Fieldset legend={t('connections.hours')}>
                <Stack gap="xs">
                  <Text size="xs" c="dimmed">
                    {t('connections.hoursHint')}
                  </Text>
                  <TextInput
                    label={t('connections.fields.time_zone')}
                    placeholder="Europe/Berlin"
                    {...form.getInputProps('time_zone')}
                  />
                  <SimpleGrid cols={{ base: 1, sm: 2 }}>
                    {WEEKDAYS.map((day) => (
                      <TextInput
                        key={day}
                        label={t(`connections.weekdays.${day}`)}
                        placeholder="09:00-12:00, 13:00-17:30"
                        disabled={!v.time_zone.trim()}
                        {...form.getInputProps(`hours.${day}`)}
                      />
                    ))}
                  </SimpleGrid>
                </Stack>
              </Fieldset>
            </>
          )}
          {v.kind !== 'twilio_voice' && (
            <NumberInput
              label={t('connections.fields.quiet_window_ms')}
              description={t('connections.quietWindowHint')}
              min={0}
              max={6000}
              step={100}
              {...form.getInputProps('quiet_window_ms')}
            />
          )}
          <TextInput
            label={t('connections.fields.public_base_url')}
            description={t('connections.publicBaseUrlHint')}
            placeholder="https://parley.example.com"
            {...form.getInputProps('public_base_url')}
          />
          {editing && (
            <Switch
              label={t('connections.active')}
              {...form.getInputProps('is_active', { type: 'checkbox' })}
            />
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={save.isPending}>
              {t('connections.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function ConnectionCard({
  botId,
  connection,
  onEdit,
}: {
  botId: string;
  connection: Connection;
  onEdit: () => void;
}) {
  const { t, i18n } = useTranslation();
  const canEdit = useCan('bot:edit');
  const remove = useDeleteConnection(botId);
  const h = connection.health;
  const when = (at: string | null) => (at ? formatDateTime(at, i18n.language) : t('connections.never'));
  const statuses = Object.entries(h.statuses);
  return (
    <Card withBorder data-testid="connection-card">
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap">
          <div>
            <Text fw={600}>{connection.name}</Text>
            <Text size="sm" c="dimmed">
              {connection.from_number ?? connection.phone_number ?? connection.phone_number_id ?? ''}
            </Text>
          </div>
          <Group gap="xs">
            <Badge variant="light">{t(`connections.kinds.${connection.kind as Kind}`)}</Badge>
            {!connection.is_active && <Badge color="gray">{t('connections.inactive')}</Badge>}
            <Badge color={h.healthy ? 'green' : 'red'} data-testid="connection-health">
              {h.healthy ? t('connections.healthy') : t('connections.unhealthy')}
            </Badge>
          </Group>
        </Group>
        <CopyBlock
          label={t('connections.webhookUrl')}
          value={connection.webhook_url}
          testId="connection-webhook-url"
        />
        {connection.status_callback_url && (
          <CopyBlock
            label={t('connections.statusCallbackUrl')}
            value={connection.status_callback_url}
            testId="connection-status-url"
          />
        )}
        <Text size="xs" c="dimmed">
          {t(`connections.consoleHint.${connection.kind as Kind}`)}
        </Text>
        <Text size="sm">
          {t('connections.lastInbound')}: {when(h.last_inbound_at)} · {t('connections.lastOutbound')}:{' '}
          {when(h.last_outbound_at)}
        </Text>
        {statuses.length > 0 && (
          <Group gap={6} data-testid="connection-statuses">
            <Text size="sm">{t('connections.statuses')}:</Text>
            {statuses.map(([status, count]) => (
              <Badge key={status} variant="outline" color={status === 'failed' ? 'red' : 'gray'}>
                {t(`connections.status.${status}`, { defaultValue: status })} {count}
              </Badge>
            ))}
          </Group>
        )}
        {(connection.kind === 'whatsapp_cloud' || connection.kind === 'twilio_whatsapp') && (
          <ConnectionTemplates botId={botId} connectionId={connection.id} />
        )}
        {h.last_error && (
          <Text size="sm" c="red" data-testid="connection-last-error">
            {t('connections.lastError')}: {h.last_error}
            {h.last_error_at ? ` (${formatDateTime(h.last_error_at, i18n.language)})` : ''}
          </Text>
        )}
        {canEdit && (
          <Group gap="xs">
            <Button size="xs" variant="default" onClick={onEdit}>
              {t('connections.editButton')}
            </Button>
            <ConfirmButton
              size="xs"
              loading={remove.isPending}
              title={t('connections.deleteTitle')}
              text={t('connections.deleteText', { name: connection.name })}
              onConfirm={() => remove.mutate(connection.id)}
            >
              {t('connections.delete')}
            </ConfirmButton>
          </Group>
        )}
      </Stack>
    </Card>
  );
}

/** Bot → Channels → WhatsApp, SMS & phone: the bot's provider connections, their webhook URLs and health. */
export function PhoneChannels({ botId }: { botId: string }) {
  const { t } = useTranslation();
  const canEdit = useCan('bot:edit');
  const connections = useConnections(botId);
  const [editing, setEditing] = useState<Connection | 'new' | null>(null);
  if (connections.isPending) return <Loading />;
  if (connections.error) return <ErrorAlert error={connections.error} />;
  const add = canEdit ? <Button onClick={() => setEditing('new')}>{t('connections.add')}</Button> : undefined;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2} size="h4">
          {t('connections.title')}
        </Title>
        {connections.data.length > 0 && add}
      </Group>
      {connections.data.length === 0 ? (
        <EmptyState title={t('connections.emptyTitle')} text={t('connections.emptyText')} action={add} />
      ) : (
        connections.data.map((connection) => (
          <ConnectionCard
            key={connection.id}
            botId={botId}
            connection={connection}
            onEdit={() => setEditing(connection)}
          />
        ))
      )}
      {editing && (
        <ConnectionForm
          botId={botId}
          connection={editing === 'new' ? undefined : editing}
          onClose={() => setEditing(null)}
        />
      )}
    </Stack>
  );
}
