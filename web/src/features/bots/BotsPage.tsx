import { Button, Group, Select, Table, Text, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Bot } from '../../api/types';
import { useCan } from '../../app/session';
import { useBots } from './queries';
import { PageTitle } from '../../components/PageTitle';
import { EmptyState } from '../../components/states';
import { formatDateTime } from '../../format';
import { DataTable } from '../../components/DataTable';
import { BotStatusBadge } from './BotStatusBadge';
import { CreateBot } from './CreateBot';

export function BotsPage() {
  const { t, i18n } = useTranslation();
  const canEdit = useCan('bot:edit');
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<string | null>(null);
  const [opened, { open, close }] = useDisclosure();
  const bots = useBots(status ? (status as Bot['status']) : null);
  const filtered = (bots.data?.data ?? []).filter((bot) =>
    bot.name.toLowerCase().includes(search.trim().toLowerCase()),
  );

  return (
    <>
      <PageTitle title={t('bots.title')}>
        {canEdit && <Button onClick={open}>{t('bots.create')}</Button>}
      </PageTitle>
      <CreateBot opened={opened} onClose={close} />
      <Group mb="md" align="flex-end">
        <TextInput
          label={t('common.search')}
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          w={240}
        />
        <Select
          label={t('bots.statusFilter')}
          clearable
          value={status}
          onChange={setStatus}
          data={['draft', 'active', 'disabled'].map((s) => ({ value: s, label: t(`bots.status.${s}`) }))}
          w={180}
        />
      </Group>
      <DataTable
        query={bots}
        isEmpty={filtered.length === 0}
        empty={
          <EmptyState
            title={t('bots.emptyTitle')}
            text={canEdit ? t('bots.emptyText') : t('bots.emptyTextViewer')}
            action={canEdit && <Button onClick={open}>{t('bots.create')}</Button>}
          />
        }
        columns={[t('bots.name'), t('bots.statusFilter'), t('common.updated')]}
        minWidth={480}
        highlightOnHover
      >
        {filtered.map((bot) => (
          <Table.Tr key={bot.id}>
            <Table.Td>
              <Link to={`/bots/${bot.id}`}>{bot.name}</Link>
              {bot.description && (
                <Text size="xs" c="dimmed" lineClamp={1}>
                  {bot.description}
                </Text>
              )}
            </Table.Td>
            <Table.Td>
              <BotStatusBadge bot={bot} />
            </Table.Td>
            <Table.Td>{formatDateTime(bot.updated_at, i18n.language)}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </>
  );
}
