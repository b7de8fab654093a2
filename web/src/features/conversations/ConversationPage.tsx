import {
  Alert,
  Anchor,
  Badge,
  Breadcrumbs,
  Button,
  Card,
  Group,
  Paper,
  Rating,
  Stack,
  Text,
} from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { useCan } from '../../app/session';
import { PageTitle } from '../../components/PageTitle';
import { ErrorAlert, Loading } from '../../components/states';
import { formatDateTime } from '../../format';
import { useSkipReasonText } from '../channels/EmailChannel';
import { DeliveryBadge } from '../channels/MailList';
import { useConversationMails } from '../channels/queries';
import { STATUS_COLOUR } from './ConversationsPage';
import { useConversationReview, useReopenConversation, type ReviewMessage } from './queries';
import { ReplyFacts } from './ReplyFacts';
import { ReplyVerdict } from './ReplyReview';
import { channelLabel, customerLabel, senderLabel } from '../../labels';

/** Who wrote a message: the customer, the bot, or a person of the team. */
function authorOf(m: ReviewMessage): 'user' | 'bot' | 'person' {
  if (m.role === 'user') return 'user';
  return m.author_user_id ? 'person' : 'bot';
}

export function ConversationPage() {
  const { t, i18n } = useTranslation();
  const { conversationId = '' } = useParams();
  const canEdit = useCan('bot:edit');
  const canReview = useCan('conversation:review');
  const conversation = useConversationReview(conversationId);
  const reopen = useReopenConversation(conversationId);
  if (conversation.isPending) return <Loading />;
  if (conversation.error) return <ErrorAlert error={conversation.error} />;
  const c = conversation.data;
  return (
    <>
      <Breadcrumbs mb="xs">
        <Anchor component={Link} to="/conversations" size="sm">
          {t('conversations.title')}
        </Anchor>
        <span>{formatDateTime(c.created_at, i18n.language)}</span>
      </Breadcrumbs>
      <PageTitle title={t('conversations.transcript')}>
        <Badge color={STATUS_COLOUR[c.status]} variant="light">
          {t(`conversations.statuses.${c.status}`, { defaultValue: c.status })}
        </Badge>
      </PageTitle>
      <Stack>
        {c.status === 'handed_over' && (
          <Alert color="orange" title={t('conversations.handedOver')}>
            <Stack gap="xs" align="flex-start">
              <Text size="sm">
                {c.escalation_reason
                  ? t(`review.reasons.${c.escalation_reason}`, { defaultValue: c.escalation_reason })
                  : t('conversations.handedOverText')}
              </Text>
              {canEdit && (
                <Button size="xs" onClick={() => reopen.mutate()} loading={reopen.isPending}>
                  {t('conversations.giveBack')}
                </Button>
              )}
              {reopen.error && <ErrorAlert error={reopen.error} />}
            </Stack>
          </Alert>
        )}
        <Card withBorder>
          <Group gap="lg" mb="sm" wrap="wrap">
            <Text size="sm">
              {t('conversations.sender')}: {senderLabel(c.sender_id, t) ?? '—'}
            </Text>
            <Text size="sm">
              {t('conversations.channel')}: {channelLabel(c.channel, t)}
            </Text>
            <Group gap={6} data-testid="customer-rating">
              <Text size="sm">{t('review.customerRating')}:</Text>
              {c.rating ? (
                <>
                  <Rating
                    value={c.rating}
                    readOnly
                    size="sm"
                    aria-label={t('review.stars', { value: c.rating })}
                  />
                  {c.rating_comment && (
                    <Text size="sm" fs="italic">
                      „{c.rating_comment}“
                    </Text>
                  )}
                </>
              ) : (
                <Text size="sm" c="dimmed">
                  {t('review.notRated')}
                </Text>
              )}
            </Group>
          </Group>
          <Stack gap="xs">
            {c.messages.map((m) => {
              const author = authorOf(m);
              return (
                <Paper
                  key={m.id}
                  p="sm"
                  radius="md"
                  bg={author === 'user' ? 'indigo.0' : author === 'person' ? 'teal.0' : 'gray.0'}
                  ml={author === 'user' ? 'xl' : 0}
                  mr={author === 'user' ? 0 : 'xl'}
                  data-testid={`message-${author}`}
                >
                  <Text size="xs" c="dimmed">
                    {author === 'user'
                      ? customerLabel(c.channel, t)
                      : author === 'person'
                        ? t('review.person', { name: m.author_name ?? '—' })
                        : t('chat.bot')}{' '}
                    · {formatDateTime(m.created_at, i18n.language)}
                  </Text>
                  <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                    {m.content}
                  </Text>
                  {author === 'bot' && (
                    <>
                      <ReplyFacts message={m} />
                      <ReplyVerdict conversationId={c.id} message={m} canReview={canReview} />
                    </>
                  )}
                </Paper>
              );
            })}
          </Stack>
        </Card>
        {c.channel === 'email' && <ConversationMails conversationId={conversationId} />}
      </Stack>
    </>
  );
}

/** An e-mail conversation's received mails; one not answered shows its reason in words. */
function ConversationMails({ conversationId }: { conversationId: string }) {
  const { t, i18n } = useTranslation();
  const mails = useConversationMails(conversationId, true);
  const reason = useSkipReasonText();
  if (mails.isPending) return <Loading />;
  if (mails.error) return <ErrorAlert error={mails.error} />;
  const rows = mails.data.pages.flatMap((page) => page.data);
  if (rows.length === 0) return null;
  const bounced = mails.data.pages[0]?.bounced ?? [];
  return (
    <Card withBorder data-testid="conversation-mails">
      <Text fw={600} mb="xs">
        {t('email.conversationMails')}
      </Text>
      {bounced.map((b) => (
        <Text key={b.address} size="sm" c="red" mb="xs" data-testid="mail-bounced">
          {t('email.bouncedWarning', { address: b.address })}
        </Text>
      ))}
      <Stack gap="sm">
        {rows.map((mail) => (
          <Stack key={mail.id} gap={2}>
            <Group gap="xs" wrap="wrap">
              <Text size="sm">
                {formatDateTime(mail.received_at, i18n.language)} · {mail.from_address ?? '—'}
              </Text>
              <Badge
                variant="light"
                color={mail.status === 'answered' ? 'green' : mail.status === 'failed' ? 'red' : 'gray'}
              >
                {mail.status === 'answered'
                  ? t('email.answered')
                  : mail.status === 'failed'
                    ? t('email.failed')
                    : t('email.notAnswered')}
              </Badge>
              <DeliveryBadge delivery={mail.delivery} />
            </Group>
            {(mail.skip_reason || mail.error) && (
              <Text size="sm" c="dimmed">
                {reason(mail)}
              </Text>
            )}
          </Stack>
        ))}
      </Stack>
      {mails.hasNextPage && (
        <Button
          variant="default"
          mt="sm"
          style={{ alignSelf: 'flex-start' }}
          onClick={() => void mails.fetchNextPage()}
          loading={mails.isFetchingNextPage}
          data-testid="conversation-mails-more"
        >
          {t('common.more')}
        </Button>
      )}
    </Card>
  );
}
