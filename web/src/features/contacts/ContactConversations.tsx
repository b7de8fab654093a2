import { Table } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { DataTable } from '../../components/DataTable';
import { Section } from '../../components/Section';
import { formatDateTime } from '../../format';
import { ConversationStateBadge } from './ConversationStateBadge';
import { NoneYet } from '../../components/NoneYet';
import { useContactConversations } from './queries';

/** The person's conversations on every channel. */
export function ContactConversations({ contactId }: { contactId: string }) {
  const { t, i18n } = useTranslation();
  const conversations = useContactConversations(contactId);
  return (
    <Section title={t('contacts.conversations')} testId="contact-conversations">
      <DataTable
        columns={[
          t('common.created'),
          t('contacts.bot'),
          t('contacts.channel'),
          t('contacts.conversationState'),
          { label: t('contacts.messages'), align: 'right' as const },
        ]}
        query={conversations}
        isEmpty={conversations.data?.data.length === 0}
        empty={<NoneYet text={t('contacts.noConversations')} />}
        minWidth={360}
      >
        {conversations.data?.data.map((c) => (
          <Table.Tr key={c.id}>
            <Table.Td>
              <Link to={`/conversations/${c.id}`}>{formatDateTime(c.created_at, i18n.language)}</Link>
            </Table.Td>
            <Table.Td>{c.bot_name}</Table.Td>
            <Table.Td>{t(`channels.${c.channel}`, { defaultValue: c.channel })}</Table.Td>
            <Table.Td>
              <ConversationStateBadge status={c.status} />
            </Table.Td>
            <Table.Td ta="right">{c.message_count}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </Section>
  );
}
