import { Anchor, Breadcrumbs, Card, Group, Stack, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { api, call } from '../../api/client';
import { PageTitle } from '../../components/PageTitle';
import { EmptyState, ErrorAlert, Loading } from '../../components/states';
import { formatDateTime } from '../../format';

export function ContactsPage() {
  const { t, i18n } = useTranslation();
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 250);
  const contacts = useQuery({
    queryKey: ['contacts', q],
    queryFn: () => call(api.GET('/api/contacts', { params: { query: { limit: 100, ...(q ? { q } : {}) } } })),
  });
  return (
    <>
      <PageTitle title={t('contacts.title')} />
      <TextInput
        label={t('common.search')}
        value={search}
        onChange={(e) => setSearch(e.currentTarget.value)}
        w={280}
        mb="md"
      />
      {contacts.isPending ? (
        <Loading />
      ) : contacts.error ? (
        <ErrorAlert error={contacts.error} />
      ) : contacts.data.data.length === 0 ? (
        <EmptyState title={t('contacts.emptyTitle')} text={t('contacts.emptyText')} />
      ) : (
        <Table.ScrollContainer minWidth={520}>
          <Table highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('contacts.name')}</Table.Th>
                <Table.Th>{t('contacts.email')}</Table.Th>
                <Table.Th>{t('contacts.phone')}</Table.Th>
                <Table.Th>{t('common.created')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {contacts.data.data.map((c) => (
                <Table.Tr key={c.id}>
                  <Table.Td>
                    <Link to={`/contacts/${c.id}`}>{c.name ?? c.email ?? c.sender_id ?? c.id}</Link>
                  </Table.Td>
                  <Table.Td>{c.email ?? '—'}</Table.Td>
                  <Table.Td>{c.phone ?? '—'}</Table.Td>
                  <Table.Td>{formatDateTime(c.created_at, i18n.language)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </>
  );
}

export function ContactPage() {
  const { t, i18n } = useTranslation();
  const { contactId = '' } = useParams();
  const contact = useQuery({
    queryKey: ['contact', contactId],
    queryFn: () => call(api.GET('/api/contacts/{id}', { params: { path: { id: contactId } } })),
  });
  if (contact.isPending) return <Loading />;
  if (contact.error) return <ErrorAlert error={contact.error} />;
  const c = contact.data;
  const rows: [string, string | null][] = [
    [t('contacts.email'), c.email],
    [t('contacts.phone'), c.phone],
    [t('contacts.sender'), c.sender_id],
    [t('contacts.channel'), c.channel],
    [t('common.created'), formatDateTime(c.created_at, i18n.language)],
  ];
  return (
    <>
      <Breadcrumbs mb="xs">
        <Anchor component={Link} to="/contacts" size="sm">
          {t('contacts.title')}
        </Anchor>
        <span>{c.name ?? c.id}</span>
      </Breadcrumbs>
      <PageTitle title={c.name ?? c.email ?? t('contacts.unnamed')} />
      <Card withBorder>
        <Stack gap={4}>
          {rows.map(([label, value]) => (
            <Group key={label} gap="xs">
              <Text size="sm" fw={600} w={140}>
                {label}
              </Text>
              <Text size="sm">{value ?? '—'}</Text>
            </Group>
          ))}
        </Stack>
      </Card>
    </>
  );
}
