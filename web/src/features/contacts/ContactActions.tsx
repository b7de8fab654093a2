import {
  Badge,
  Button,
  Card,
  Group,
  Modal,
  NativeSelect,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { api, call } from '../../api/client';
import { DataTable } from '../../components/DataTable';
import { ErrorAlert, Loading } from '../../components/states';
import { formatDateTime } from '../../format';

export interface ContactFormValues {
  name: string;
  email: string;
  phone: string;
}

const orNull = (text: string) => (text.trim() === '' ? null : text.trim());

/** Create or edit a contact: name, e-mail, phone (stored in E.164 by the service). */
export function ContactForm({
  initial,
  submitLabel,
  onSubmit,
  pending,
  error,
}: {
  initial: ContactFormValues;
  submitLabel: string;
  onSubmit: (values: { name: string | null; email: string | null; phone: string | null }) => void;
  pending: boolean;
  error: unknown;
}) {
  const { t } = useTranslation();
  const [values, setValues] = useState(initial);
  const set = (key: keyof ContactFormValues) => (e: React.ChangeEvent<HTMLInputElement>) =>
    setValues({ ...values, [key]: e.currentTarget.value });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit({ name: orNull(values.name), email: orNull(values.email), phone: orNull(values.phone) });
      }}
    >
      <Stack>
        <TextInput label={t('contacts.name')} value={values.name} onChange={set('name')} />
        <TextInput label={t('contacts.email')} type="email" value={values.email} onChange={set('email')} />
        <TextInput
          label={t('contacts.phone')}
          description={t('contacts.phoneHint')}
          value={values.phone}
          onChange={set('phone')}
        />
        {error ? <ErrorAlert error={error} /> : null}
        <Group justify="flex-end">
          <Button type="submit" loading={pending}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** "New contact" on the contact list. */
export function NewContactButton() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const create = useMutation({
    mutationFn: (body: { name: string | null; email: string | null; phone: string | null }) =>
      call(api.POST('/api/contacts', { body: { ...body, channel: 'manual' } })),
    onSuccess: (contact) => void navigate(`/contacts/${contact.id}`),
  });
  return (
    <>
      <Button onClick={() => setOpen(true)}>{t('contacts.create')}</Button>
      <Modal opened={open} onClose={() => setOpen(false)} title={t('contacts.create')}>
        <ContactForm
          initial={{ name: '', email: '', phone: '' }}
          submitLabel={t('common.save')}
          onSubmit={(values) => create.mutate(values)}
          pending={create.isPending}
          error={create.error}
        />
      </Modal>
    </>
  );
}

/** The person's conversations on every channel. */
export function ContactConversations({ contactId }: { contactId: string }) {
  const { t, i18n } = useTranslation();
  const conversations = useQuery({
    queryKey: ['contact-conversations', contactId],
    queryFn: () => call(api.GET('/api/contacts/{id}/conversations', { params: { path: { id: contactId } } })),
  });
  return (
    <Card withBorder data-testid="contact-conversations">
      <Title order={2} size="h4" mb="xs">
        {t('contacts.conversations')}
      </Title>
      {conversations.isPending ? (
        <Loading />
      ) : conversations.error ? (
        <ErrorAlert error={conversations.error} />
      ) : conversations.data.data.length === 0 ? (
        <Text c="dimmed" size="sm">
          {t('contacts.noConversations')}
        </Text>
      ) : (
        <DataTable
          columns={[
            { label: t('common.created') },
            { label: t('contacts.bot') },
            { label: t('contacts.channel') },
            { label: t('contacts.conversationState') },
            { label: t('contacts.messages'), align: 'right' as const },
          ]}
          minWidth={360}
        >
          {conversations.data.data.map((c) => (
            <Table.Tr key={c.id}>
              <Table.Td>
                <Link to={`/conversations/${c.id}`}>{formatDateTime(c.created_at, i18n.language)}</Link>
              </Table.Td>
              <Table.Td>{c.bot_name}</Table.Td>
              <Table.Td>{t(`channels.${c.channel}`, { defaultValue: c.channel })}</Table.Td>
              <Table.Td>
                <Badge
                  color={c.status === 'active' ? 'green' : c.status === 'handed_over' ? 'orange' : 'gray'}
                >
                  {t(`conversations.statuses.${c.status}`, { defaultValue: c.status })}
                </Badge>
              </Table.Td>
              <Table.Td ta="right">{c.message_count}</Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      )}
    </Card>
  );
}

interface ContactLike {
  id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
}

/** Edit, merge another contact in, export the person's data, erase the person. */
export function ContactActions({ contact }: { contact: ContactLike }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [dialog, setDialog] = useState<'edit' | 'merge' | 'erase' | null>(null);
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 250);
  const [source, setSource] = useState<string | null>(null);
  const refresh = () => void queryClient.invalidateQueries();

  const edit = useMutation({
    mutationFn: (body: { name: string | null; email: string | null; phone: string | null }) =>
      call(api.PUT('/api/contacts/{id}', { params: { path: { id: contact.id } }, body })),
    onSuccess: () => {
      setDialog(null);
      refresh();
    },
  });
  const candidates = useQuery({
    queryKey: ['contacts', 'merge', q],
    enabled: dialog === 'merge',
    queryFn: () => call(api.GET('/api/contacts', { params: { query: { limit: 20, ...(q ? { q } : {}) } } })),
  });
  const merge = useMutation({
    mutationFn: (contactId: string) =>
      call(
        api.POST('/api/contacts/{id}/merge', {
          params: { path: { id: contact.id } },
          body: { contact_id: contactId },
        }),
      ),
    onSuccess: () => {
      setDialog(null);
      setSource(null);
      refresh();
    },
  });
  const exportData = useMutation({
    mutationFn: () => call(api.GET('/api/contacts/{id}/export', { params: { path: { id: contact.id } } })),
    onSuccess: (data) => {
      const url = URL.createObjectURL(
        new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }),
      );
      const a = document.createElement('a');
      a.href = url;
      a.download = `contact-${contact.id}.json`;
      a.click();
      URL.revokeObjectURL(url);
    },
  });
  const erase = useMutation({
    mutationFn: () => call(api.POST('/api/contacts/{id}/erase', { params: { path: { id: contact.id } } })),
    onSuccess: () => void navigate('/contacts'),
  });

  const options = (candidates.data?.data ?? [])
    .filter((c) => c.id !== contact.id)
    .map((c) => ({
      value: c.id,
      label: [c.name, c.email, c.phone, c.sender_id].filter(Boolean).join(' · ') || c.id,
    }));

  return (
    <>
      <Group gap="xs">
        <Button variant="default" onClick={() => setDialog('edit')}>
          {t('contacts.edit')}
        </Button>
        <Button variant="default" onClick={() => setDialog('merge')}>
          {t('contacts.merge')}
        </Button>
        <Button variant="default" onClick={() => exportData.mutate()} loading={exportData.isPending}>
          {t('contacts.export')}
        </Button>
        <Button color="red" variant="light" onClick={() => setDialog('erase')}>
          {t('contacts.erase')}
        </Button>
      </Group>
      {exportData.error ? <ErrorAlert error={exportData.error} /> : null}
      <Modal opened={dialog === 'edit'} onClose={() => setDialog(null)} title={t('contacts.edit')}>
        <ContactForm
          initial={{ name: contact.name ?? '', email: contact.email ?? '', phone: contact.phone ?? '' }}
          submitLabel={t('common.save')}
          onSubmit={(values) => edit.mutate(values)}
          pending={edit.isPending}
          error={edit.error}
        />
      </Modal>
      <Modal opened={dialog === 'merge'} onClose={() => setDialog(null)} title={t('contacts.merge')}>
        <Stack>
          <Text size="sm">{t('contacts.mergeText')}</Text>
          <TextInput
            label={t('common.search')}
            value={search}
            onChange={(e) => setSearch(e.currentTarget.value)}
          />
          <NativeSelect
            label={t('contacts.mergeSource')}
            data={[{ value: '', label: '—' }, ...options]}
            value={source ?? ''}
            onChange={(e) => setSource(e.currentTarget.value || null)}
          />
          {merge.error ? <ErrorAlert error={merge.error} /> : null}
          <Group justify="flex-end">
            <Button
              disabled={!source}
              loading={merge.isPending}
              onClick={() => source && merge.mutate(source)}
            >
              {t('contacts.mergeConfirm')}
            </Button>
          </Group>
        </Stack>
      </Modal>
      <Modal opened={dialog === 'erase'} onClose={() => setDialog(null)} title={t('contacts.erase')}>
        <Stack>
          <Text size="sm">{t('contacts.eraseText')}</Text>
          {erase.error ? <ErrorAlert error={erase.error} /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDialog(null)}>
              {t('common.cancel')}
            </Button>
            <Button color="red" loading={erase.isPending} onClick={() => erase.mutate()}>
              {t('contacts.eraseConfirm')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
