import {
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  Code,
  CopyButton,
  Group,
  Modal,
  NumberInput,
  PasswordInput,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMediaQuery } from '@mantine/hooks';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCan } from '../../app/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { EmptyState, ErrorAlert, Loading } from '../../components/states';
import { notify } from '../../components/notify';
import { useFormUnsavedChanges } from '../../components/unsaved-changes';
import { formatDateTime } from '../../format';
import {
  useCheckMailbox,
  useDeleteMailbox,
  useMailboxes,
  useSaveMailbox,
  type Mailbox,
  type MailboxBody,
} from './queries';
import { MailList } from './MailList';

type Kind = 'imap' | 'graph' | 'postmark';

export { useSkipReasonText } from './MailList';

interface FormValues {
  kind: Kind;
  name: string;
  address: string;
  imap_host: string;
  imap_port: number | string;
  imap_tls: boolean;
  smtp_host: string;
  smtp_port: number | string;
  smtp_tls: boolean;
  username: string;
  password: string;
  tenant_id: string;
  client_id: string;
  client_secret: string;
  secret_expires_at: string;
  inbound_username: string;
  inbound_password: string;
  read_attachments: boolean;
  reply_all: boolean;
}

function initialValues(mailbox?: Mailbox): FormValues {
  const s = mailbox?.settings ?? {};
  return {
    kind: (mailbox?.kind as Kind | undefined) ?? 'imap',
    name: mailbox?.name ?? '',
    address: mailbox?.address ?? '',
    imap_host: s.imap_host ?? '',
    imap_port: s.imap_port ?? 993,
    imap_tls: s.imap_tls ?? true,
    smtp_host: s.smtp_host ?? '',
    smtp_port: s.smtp_port ?? 465,
    smtp_tls: s.smtp_tls ?? true,
    username: s.username ?? '',
    password: '',
    tenant_id: s.tenant_id ?? '',
    client_id: s.client_id ?? '',
    client_secret: '',
    secret_expires_at: mailbox?.secret_expires_at?.slice(0, 10) ?? '',
    inbound_username: s.inbound_username ?? '',
    inbound_password: '',
    read_attachments: s.read_attachments ?? false,
    reply_all: s.reply_all ?? true,
  };
}

/** The request body of a form: settings of the kind only, secrets only when typed (write-only). */
function bodyOf(v: FormValues, editing: boolean): MailboxBody {
  const port = (value: number | string) => (value === '' ? undefined : Number(value));
  const text = (value: string) => value.trim() || undefined;
  const smtp = {
    smtp_host: text(v.smtp_host),
    smtp_port: port(v.smtp_port),
    smtp_tls: v.smtp_tls,
    username: text(v.username),
  };
  const settings =
    v.kind === 'imap'
      ? { imap_host: text(v.imap_host), imap_port: port(v.imap_port), imap_tls: v.imap_tls, ...smtp }
      : v.kind === 'graph'
        ? { tenant_id: text(v.tenant_id), client_id: text(v.client_id) }
        : { inbound_username: text(v.inbound_username), ...smtp };
  const secrets: Record<string, string> = {};
  if (v.kind !== 'graph' && v.password) secrets.password = v.password;
  if (v.kind === 'graph' && v.client_secret) secrets.client_secret = v.client_secret;
  if (v.kind === 'postmark' && v.inbound_password) secrets.inbound_password = v.inbound_password;
  const body: MailboxBody = {
    kind: v.kind,
    name: v.name.trim(),
    address: v.address.trim(),
    settings: { ...settings, read_attachments: v.read_attachments, reply_all: v.reply_all },
    secrets,
  };
  if (v.kind === 'graph')
    body.secret_expires_at = v.secret_expires_at
      ? new Date(`${v.secret_expires_at}T00:00:00Z`).toISOString()
      : null;
  if (editing && Object.keys(secrets).length === 0) delete (body as Partial<MailboxBody>).secrets;
  return body;
}

function MailboxForm({ botId, mailbox, onClose }: { botId: string; mailbox?: Mailbox; onClose: () => void }) {
  const { t } = useTranslation();
  const save = useSaveMailbox(botId);
  const narrow = useMediaQuery('(max-width: 30em)');
  const editing = Boolean(mailbox);
  const required = (v: string) => (v.trim() ? null : t('email.required'));
  const form = useForm<FormValues>({
    initialValues: initialValues(mailbox),
    validate: {
      name: required,
      address: (v) => (/^[^\s@]+@[^\s@]+$/.test(v.trim()) ? null : t('email.addressInvalid')),
    },
  });
  const v = form.values;
  const secretHint = (name: string) =>
    editing && mailbox?.secrets_set.includes(name) ? t('email.secretKept') : undefined;
  const variables = (values: FormValues) => {
    const body = bodyOf(values, editing);
    const { kind: _kind, ...patch } = body;
    return mailbox ? { id: mailbox.id, patch } : { body };
  };
  const saved = {
    onSuccess: () => {
      notify(t('email.saved'));
      onClose();
    },
  };
  const submit = (values: FormValues) => save.mutate(variables(values), saved);
  // Leaving with unsaved changes (another tab, another page, closing the browser tab) asks first.
  useFormUnsavedChanges(form, (values) => save.mutateAsync(variables(values), saved));
  const smtpFields = (
    <>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput label={t('email.smtpHost')} {...form.getInputProps('smtp_host')} />
        <NumberInput label={t('email.smtpPort')} min={1} max={65535} {...form.getInputProps('smtp_port')} />
      </SimpleGrid>
      <Switch label={t('email.smtpTls')} {...form.getInputProps('smtp_tls', { type: 'checkbox' })} />
      <TextInput label={t('email.username')} {...form.getInputProps('username')} />
      <PasswordInput
        label={t('email.password')}
        description={secretHint('password')}
        autoComplete="new-password"
        {...form.getInputProps('password')}
      />
    </>
  );
  return (
    <Modal opened onClose={onClose} title={editing ? t('email.edit') : t('email.add')} size="lg">
      <form onSubmit={form.onSubmit(submit)} noValidate>
        <Stack>
          {save.error && <ErrorAlert error={save.error} />}
          {!editing && (
            <SegmentedControl
              aria-label={t('email.kind')}
              orientation={narrow ? 'vertical' : 'horizontal'}
              fullWidth
              data={(['imap', 'graph', 'postmark'] as const).map((kind) => ({
                value: kind,
                label: t(`email.kinds.${kind}`),
              }))}
              {...form.getInputProps('kind')}
            />
          )}
          <TextInput label={t('email.name')} required data-autofocus {...form.getInputProps('name')} />
          <TextInput label={t('email.address')} required type="email" {...form.getInputProps('address')} />
          {v.kind === 'imap' && (
            <>
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <TextInput label={t('email.imapHost')} {...form.getInputProps('imap_host')} />
                <NumberInput
                  label={t('email.imapPort')}
                  min={1}
                  max={65535}
                  {...form.getInputProps('imap_port')}
                />
              </SimpleGrid>
              <Switch label={t('email.imapTls')} {...form.getInputProps('imap_tls', { type: 'checkbox' })} />
              {smtpFields}
            </>
          )}
          {v.kind === 'graph' && (
            <>
              <TextInput label={t('email.tenantId')} {...form.getInputProps('tenant_id')} />
              <TextInput label={t('email.clientId')} {...form.getInputProps('client_id')} />
              <PasswordInput
                label={t('email.clientSecret')}
                description={secretHint('client_secret')}
                autoComplete="new-password"
                {...form.getInputProps('client_secret')}
              />
              <TextInput
                type="date"
                label={t('email.secretExpiresAt')}
                {...form.getInputProps('secret_expires_at')}
              />
            </>
          )}
          {v.kind === 'postmark' && (
            <>
              <TextInput label={t('email.inboundUsername')} {...form.getInputProps('inbound_username')} />
              <PasswordInput
                label={t('email.inboundPassword')}
                description={secretHint('inbound_password')}
                autoComplete="new-password"
                {...form.getInputProps('inbound_password')}
              />
              {smtpFields}
            </>
          )}
          <Switch
            label={t('email.replyAll')}
            description={t('email.replyAllHint')}
            {...form.getInputProps('reply_all', { type: 'checkbox' })}
          />
          <Switch
            label={t('email.readAttachments')}
            description={t('email.readAttachmentsHint')}
            {...form.getInputProps('read_attachments', { type: 'checkbox' })}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={save.isPending}>
              {t('email.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function SecretWarning({ mailbox }: { mailbox: Mailbox }) {
  const { t } = useTranslation();
  const days = mailbox.health.secret_expires_in_days;
  if (!mailbox.health.warning || days === null) return null;
  if (mailbox.health.warning === 'secret_expired')
    return (
      <Alert color="red" p="xs" title={t('email.secretExpired')}>
        <Text size="sm">{t('email.secretExpiredText')}</Text>
      </Alert>
    );
  return (
    <Alert
      color={days <= 1 ? 'red' : days <= 7 ? 'orange' : 'yellow'}
      p="xs"
      title={t('email.secretExpiring', { count: days })}
    >
      <Text size="sm">{t('email.secretExpiringText')}</Text>
    </Alert>
  );
}

function MailboxCard({ botId, mailbox, onEdit }: { botId: string; mailbox: Mailbox; onEdit: () => void }) {
  const { t, i18n } = useTranslation();
  const canEdit = useCan('bot:edit');
  const check = useCheckMailbox(botId);
  const remove = useDeleteMailbox(botId);
  const [showSkipped, setShowSkipped] = useState(false);
  const h = mailbox.health;
  return (
    <Card withBorder data-testid="mailbox-card">
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap">
          <div>
            <Text fw={600}>{mailbox.name}</Text>
            <Text size="sm" c="dimmed">
              {mailbox.address}
            </Text>
          </div>
          <Group gap="xs">
            <Badge variant="light">{t(`email.kinds.${mailbox.kind}`)}</Badge>
            {!mailbox.is_active && <Badge color="gray">{t('email.inactive')}</Badge>}
            {h.stale && <Badge color="orange">{t('email.stale')}</Badge>}
          </Group>
        </Group>
        <Text size="sm">
          {t('email.lastSync')}:{' '}
          {h.last_sync_at ? formatDateTime(h.last_sync_at, i18n.language) : t('email.never')}
        </Text>
        {h.last_error && (
          <Stack gap={2}>
            <Text size="sm" c="red" data-testid="mailbox-last-error">
              {t('email.lastError')}:{' '}
              {i18n.language.startsWith('en') ? (h.last_error_en ?? h.last_error) : h.last_error}
              {h.last_error_at ? ` (${formatDateTime(h.last_error_at, i18n.language)})` : ''}
            </Text>
            {h.last_error_detail && h.last_error_detail !== h.last_error && (
              <details>
                <summary>
                  <Text span size="xs" c="dimmed">
                    {t('email.errorDetail')}
                  </Text>
                </summary>
                <Code block>{h.last_error_detail}</Code>
              </details>
            )}
          </Stack>
        )}
        {h.token_expires_at && (
          <Text size="sm" c="dimmed">
            {t('email.tokenExpires')}: {formatDateTime(h.token_expires_at, i18n.language)}
          </Text>
        )}
        <SecretWarning mailbox={mailbox} />
        {mailbox.inbound_url && (
          <Stack gap={4}>
            <Text size="sm">{t('email.inboundUrl')}</Text>
            <Group gap="xs" wrap="nowrap">
              <Code style={{ overflowWrap: 'anywhere' }}>{mailbox.inbound_url}</Code>
              <CopyButton value={mailbox.inbound_url}>
                {({ copied, copy }) => (
                  <Button size="compact-xs" variant="light" onClick={copy}>
                    {copied ? t('email.copied') : t('email.copy')}
                  </Button>
                )}
              </CopyButton>
            </Group>
            <Text size="xs" c="dimmed">
              {t('email.inboundUrlHint')}
            </Text>
          </Stack>
        )}
        {check.data && (
          <Alert color={check.data.ok ? 'green' : 'red'} p="xs" role="status">
            <Text size="sm">
              {check.data.ok
                ? t('email.checkOk')
                : `${t('email.checkFailed')}: ${(i18n.language.startsWith('en') ? check.data.error_en : check.data.error) ?? ''}`}
            </Text>
          </Alert>
        )}
        {check.error && <ErrorAlert error={check.error} />}
        <Group gap="xs">
          {canEdit && (
            <>
              <Button
                size="xs"
                variant="light"
                loading={check.isPending}
                onClick={() => check.mutate(mailbox.id)}
              >
                {t('email.check')}
              </Button>
              <Button size="xs" variant="default" onClick={onEdit}>
                {t('email.editButton')}
              </Button>
              <ConfirmButton
                size="xs"
                loading={remove.isPending}
                title={t('email.deleteTitle')}
                text={t('email.deleteText', { address: mailbox.address })}
                onConfirm={() => remove.mutate(mailbox.id)}
              >
                {t('email.delete')}
              </ConfirmButton>
            </>
          )}
          <Anchor component="button" type="button" size="sm" onClick={() => setShowSkipped((s) => !s)}>
            {showSkipped ? t('email.hideSkipped') : t('email.showSkipped')}
          </Anchor>
        </Group>
        {showSkipped && <MailList botId={botId} mailboxId={mailbox.id} />}
      </Stack>
    </Card>
  );
}

/** Bot → Channels → E-mail: the bot's mailboxes, their health, and the mails not answered. */
export function EmailChannel({ botId }: { botId: string }) {
  const { t } = useTranslation();
  const canEdit = useCan('bot:edit');
  const mailboxes = useMailboxes(botId);
  const [editing, setEditing] = useState<Mailbox | 'new' | null>(null);
  if (mailboxes.isPending) return <Loading />;
  if (mailboxes.error) return <ErrorAlert error={mailboxes.error} />;
  const add = canEdit ? <Button onClick={() => setEditing('new')}>{t('email.add')}</Button> : undefined;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2} size="h4">
          {t('email.title')}
        </Title>
        {mailboxes.data.length > 0 && add}
      </Group>
      {mailboxes.data.length === 0 ? (
        <EmptyState title={t('email.emptyTitle')} text={t('email.emptyText')} action={add} />
      ) : (
        mailboxes.data.map((mailbox) => (
          <MailboxCard key={mailbox.id} botId={botId} mailbox={mailbox} onEdit={() => setEditing(mailbox)} />
        ))
      )}
      {editing && (
        <MailboxForm
          botId={botId}
          mailbox={editing === 'new' ? undefined : editing}
          onClose={() => setEditing(null)}
        />
      )}
    </Stack>
  );
}
