import { Table } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatDateTime } from '../../format';
import { ConversationStateBadge } from './ConversationStateBadge';
import { ContactList } from './ContactList';
import { useContactConversations, useContactLeads } from './queries';
import { channelLabel } from '../../labels';

/** One conversation of the person: when it started (a link to it), the bot, its state and length. */
function ConversationCells({
  conversation,
  channel,
}: {
  conversation: { id: string; created_at: string; bot_name: string; status: string; message_count: number };
  channel?: string;
}) {
  const { t, i18n } = useTranslation();
  return (
    <Table.Tr>
      <Table.Td>
        <Link to={`/conversations/${conversation.id}`}>
          {formatDateTime(conversation.created_at, i18n.language)}
        </Link>
      </Table.Td>
      <Table.Td>{conversation.bot_name}</Table.Td>
      {channel !== undefined && <Table.Td>{channelLabel(channel, t)}</Table.Td>}
      <Table.Td>
        <ConversationStateBadge status={conversation.status} />
      </Table.Td>
      <Table.Td ta="right">{conversation.message_count}</Table.Td>
    </Table.Tr>
  );
}

/** The person's conversations on every channel. */
export function ContactConversations({ contactId }: { contactId: string }) {
  const { t } = useTranslation();
  return (
    <ContactList
      title={t('contacts.conversations')}
      testId="contact-conversations"
      query={useContactConversations(contactId)}
      none={t('contacts.noConversations')}
      columns={[
        t('common.created'),
        t('contacts.bot'),
        t('contacts.channel'),
        t('contacts.conversationState'),
        { label: t('contacts.messages'), align: 'right' },
      ]}
      minWidth={360}
      row={(c) => <ConversationCells key={c.id} conversation={c} channel={c.channel} />}
    />
  );
}

/** The conversations in which the person left their details. */
export function ContactLeads({ contactId }: { contactId: string }) {
  const { t } = useTranslation();
  return (
    <ContactList
      title={t('contacts.leads')}
      testId="contact-leads"
      query={useContactLeads(contactId)}
      none={t('contacts.noLeads')}
      columns={[
        t('common.created'),
        t('contacts.bot'),
        t('contacts.conversationState'),
        { label: t('contacts.messages'), align: 'right' },
      ]}
      minWidth={320}
      row={(l) => (
        <ConversationCells key={l.conversation_id} conversation={{ ...l, id: l.conversation_id }} />
      )}
    />
  );
}
