import { Group, Table, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useCan } from '../../app/session';
import { DataTable } from '../../components/DataTable';
import { PageTitle } from '../../components/PageTitle';
import { EmptyState } from '../../components/states';
import { formatDateTime } from '../../format';
import { NewContactButton } from './NewContactButton';
import { useContacts } from './queries';
import { senderLabel } from '../../labels';

export function ContactsPage() {
  const { t, i18n } = useTranslation();
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 250);
  const canEdit = useCan('contact:edit');
  const contacts = useContacts(q, 100);
  return (
    <>
      <PageTitle title={t('contacts.title')} />
      <Group justify="space-between" align="flex-end" mb="md">
        <TextInput
          label={t('common.search')}
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          w={280}
        />
        {canEdit && <NewContactButton />}
      </Group>
      <DataTable
        columns={[t('contacts.name'), t('contacts.email'), t('contacts.phone'), t('common.created')]}
        query={contacts}
        isEmpty={contacts.data?.data.length === 0}
        empty={<EmptyState title={t('contacts.emptyTitle')} text={t('contacts.emptyText')} />}
        minWidth={520}
        highlightOnHover
      >
        {contacts.data?.data.map((c) => (
          <Table.Tr key={c.id}>
            <Table.Td>
              <Link to={`/contacts/${c.id}`}>{c.name ?? c.email ?? senderLabel(c.sender_id, t) ?? c.id}</Link>
            </Table.Td>
            <Table.Td>{c.email ?? '—'}</Table.Td>
            <Table.Td>{c.phone ?? '—'}</Table.Td>
            <Table.Td>{formatDateTime(c.created_at, i18n.language)}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </>
  );
}
