import { Table } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { DataTable } from '../../components/DataTable';
import { Section } from '../../components/Section';
import { formatDateTime } from '../../format';
import { ConversationStateBadge } from './ConversationStateBadge';
import { NoneYet } from '../../components/NoneYet';
import { useContactLeads } from './queries';

/** The conversations in which the person left their details. */
export function ContactLeads({ contactId }: { contactId: string }) {
  const { t, i18n } = useTranslation();
  const leads = useContactLeads(contactId);
  return (
    <Section title={t('contacts.leads')} testId="contact-leads">
      <DataTable
        columns={[
          t('common.created'),
          t('contacts.bot'),
          t('contacts.conversationState'),
          { label: t('contacts.messages'), align: 'right' as const },
        ]}
        query={leads}
        isEmpty={leads.data?.data.length === 0}
        empty={<NoneYet text={t('contacts.noLeads')} />}
        minWidth={320}
      >
        {leads.data?.data.map((l) => (
          <Table.Tr key={l.conversation_id}>
            <Table.Td>
              <Link to={`/conversations/${l.conversation_id}`}>
                {formatDateTime(l.created_at, i18n.language)}
              </Link>
            </Table.Td>
            <Table.Td>{l.bot_name}</Table.Td>
            <Table.Td>
              <ConversationStateBadge status={l.status} />
            </Table.Td>
            <Table.Td ta="right">{l.message_count}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </Section>
  );
}
