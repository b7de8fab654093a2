import { Button, Group, Modal, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ErrorAlert } from '../../components/states';
import { ContactForm } from './ContactForm';
import { useContacts, useEditContact, useEraseContact, useExportContact, useMergeContact } from './queries';

interface ContactLike {
  id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
}

/** Edit, merge another contact in, export the person's data, erase the person. */
export function ContactActions({ contact }: { contact: ContactLike }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [dialog, setDialog] = useState<'edit' | 'merge' | 'erase' | null>(null);
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 250);
  const [source, setSource] = useState<string | null>(null);

  const edit = useEditContact(contact.id, () => setDialog(null));
  const candidates = useContacts(q, 20, dialog === 'merge');
  const merge = useMergeContact(contact.id, () => {
    setDialog(null);
    setSource(null);
  });
  const exportData = useExportContact(contact.id);
  const erase = useEraseContact(contact.id, () => void navigate('/contacts'));

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
