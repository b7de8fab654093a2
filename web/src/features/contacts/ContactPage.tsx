import { Alert, Anchor, Breadcrumbs, Card, Group, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { useCan } from '../../app/session';
import { PageTitle } from '../../components/PageTitle';
import { ErrorAlert, Loading } from '../../components/states';
import { formatDateTime } from '../../format';
import { ContactActions } from './ContactActions';
import { ContactBookings } from './ContactBookings';
import { ContactConversations } from './ContactConversations';
import { ContactLeads } from './ContactConversations';
import { useContact } from './queries';
import { channelLabel, senderLabel } from '../../labels';

/** One person: their details, bookings, conversations and leads; edit, merge, export, erase. */
export function ContactPage() {
  const { t, i18n } = useTranslation();
  const { contactId = '' } = useParams();
  const canEdit = useCan('contact:edit');
  const contact = useContact(contactId);
  if (contact.isPending) return <Loading />;
  if (contact.error) return <ErrorAlert error={contact.error} />;
  const c = contact.data;
  const rows: [string, string | null][] = [
    [t('contacts.email'), c.email],
    [t('contacts.phone'), c.phone],
    [t('contacts.sender'), senderLabel(c.sender_id, t)],
    [t('contacts.channel'), c.channel ? channelLabel(c.channel, t) : null],
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
      <Stack>
        {c.email_bounced && (
          <Alert color="red" title={t('contacts.bouncedTitle')} data-testid="contact-bounced">
            <Text size="sm">
              {t('contacts.bouncedText', {
                address: c.email_bounced.address,
                date: formatDateTime(c.email_bounced.at, i18n.language),
              })}
            </Text>
            {c.email_bounced.detail && (
              <Text size="xs" mt={4} style={{ wordBreak: 'break-word' }}>
                {t('contacts.bouncedDetail', { detail: c.email_bounced.detail })}
              </Text>
            )}
          </Alert>
        )}
        {canEdit && <ContactActions contact={c} />}
        <Card withBorder>
          <Stack gap={4}>
            {rows.map(([label, value]) => (
              <Group key={label} gap="xs" wrap="nowrap" align="flex-start">
                <Text size="sm" fw={600} w={140} style={{ flexShrink: 0 }}>
                  {label}
                </Text>
                <Text size="sm" style={{ wordBreak: 'break-word', minWidth: 0 }}>
                  {value ?? '—'}
                </Text>
              </Group>
            ))}
          </Stack>
        </Card>
        <ContactBookings contactId={c.id} />
        <ContactConversations contactId={c.id} />
        <ContactLeads contactId={c.id} />
      </Stack>
    </>
  );
}
