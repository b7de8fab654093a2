import { Anchor, Badge, Button, Code, Group, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCan, useMe } from '../../app/session';
import { ErrorAlert, Loading } from '../../components/states';
import { notify } from '../../components/notify';
import { formatDateTime } from '../../format';
import {
  rawMailUrl,
  useAnswerMailAnyway,
  useMailboxMails,
  useSendMailToInbox,
  type ReceivedMail,
} from './queries';

/** The reason a mail was not answered, in words (an error as the server wrote it). */
export function useSkipReasonText() {
  const { t } = useTranslation();
  return (mail: Pick<ReceivedMail, 'skip_reason' | 'error'>) =>
    mail.skip_reason
      ? t(`email.reasons.${mail.skip_reason}`, { defaultValue: mail.skip_reason })
      : (mail.error ?? '');
}

const DELIVERY_COLOR: Record<string, string> = {
  queued: 'gray',
  sent: 'green',
  deferred: 'yellow',
  bounced: 'red',
  failed: 'red',
};

/** What became of the reply to a mail: queued, sent, deferred (with the server's words), bounced. */
export function DeliveryBadge({ delivery }: { delivery: ReceivedMail['delivery'] }) {
  const { t } = useTranslation();
  if (!delivery) return null;
  return (
    <Badge
      variant="light"
      color={DELIVERY_COLOR[delivery.status] ?? 'gray'}
      title={delivery.detail ?? undefined}
      data-testid="mail-delivery"
    >
      {t(`email.delivery.${delivery.status}`, { defaultValue: delivery.status })}
      {delivery.status === 'deferred' || delivery.status === 'bounced'
        ? delivery.detail
          ? `: ${delivery.detail.slice(0, 80)}`
          : ''
        : ''}
    </Badge>
  );
}

type StatusFilter = 'skipped' | 'failed' | 'answered' | 'all';

function MailRow({ botId, mailboxId, mail }: { botId: string; mailboxId: string; mail: ReceivedMail }) {
  const { t, i18n } = useTranslation();
  const reason = useSkipReasonText();
  const canWork = useCan('inbox:work');
  const role = useMe().user.role;
  const answer = useAnswerMailAnyway(botId, mailboxId);
  const toInbox = useSendMailToInbox(botId, mailboxId);
  const open = (mail.status === 'skipped' || mail.status === 'failed') && !mail.second_chance;
  return (
    <Stack gap={2} data-testid="mail-row">
      <Group gap="xs" wrap="wrap">
        <Text size="sm">{formatDateTime(mail.received_at, i18n.language)}</Text>
        <Text size="sm" fw={500}>
          {mail.from_address ?? '—'}
        </Text>
        {mail.reply_to && mail.reply_to !== mail.from_address && (
          <Text size="sm" c="dimmed">
            {t('email.replyTo')}: {mail.reply_to}
          </Text>
        )}
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
        {mail.second_chance && (
          <Badge variant="outline">{t(`email.secondChance.${mail.second_chance}`)}</Badge>
        )}
        <DeliveryBadge delivery={mail.delivery} />
      </Group>
      <Text size="sm">{mail.subject || t('email.noSubject')}</Text>
      {(mail.skip_reason || mail.error) && (
        <Text size="sm" c="dimmed">
          {reason(mail)}
        </Text>
      )}
      <Text size="xs" c="dimmed">
        {t('email.messageId')}: <Code>{mail.message_id}</Code>
      </Text>
      <Group gap="xs">
        {open && canWork && (
          <>
            <Button
              size="compact-xs"
              variant="light"
              loading={answer.isPending}
              onClick={() =>
                answer.mutate(mail.id, {
                  onSuccess: (result) =>
                    notify(
                      result.status === 'answered' ? t('email.answeredAnyway') : t('email.answerAnywayNot'),
                      result.status === 'answered' ? 'green' : 'red',
                    ),
                })
              }
            >
              {t('email.answerAnyway')}
            </Button>
            <Button
              size="compact-xs"
              variant="default"
              loading={toInbox.isPending}
              onClick={() => toInbox.mutate(mail.id, { onSuccess: () => notify(t('email.sentToInbox')) })}
            >
              {t('email.sendToInbox')}
            </Button>
          </>
        )}
        {mail.has_raw && (role === 'owner' || role === 'admin') && (
          <Anchor size="xs" href={rawMailUrl(botId, mailboxId, mail.id)} download>
            {t('email.downloadRaw')}
          </Anchor>
        )}
      </Group>
      {answer.error && <ErrorAlert error={answer.error} />}
      {toInbox.error && <ErrorAlert error={toInbox.error} />}
    </Stack>
  );
}

/** A mailbox's received mails: not answered first, with a search; each with its second chance. */
export function MailList({ botId, mailboxId }: { botId: string; mailboxId: string }) {
  const { t } = useTranslation();
  const [status, setStatus] = useState<StatusFilter>('skipped');
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search, 300);
  const mails = useMailboxMails(botId, mailboxId, { status: status === 'all' ? null : status, q });
  const rows = mails.data?.pages.flatMap((page) => page.data) ?? [];
  return (
    <Stack gap="xs" data-testid="skipped-mails">
      <Group gap="xs" wrap="wrap">
        <SegmentedControl
          size="xs"
          value={status}
          onChange={(v) => setStatus(v as StatusFilter)}
          data={[
            { value: 'skipped', label: t('email.filter.skipped') },
            { value: 'failed', label: t('email.filter.failed') },
            { value: 'answered', label: t('email.filter.answered') },
            { value: 'all', label: t('email.filter.all') },
          ]}
        />
        <TextInput
          size="xs"
          placeholder={t('email.search')}
          aria-label={t('email.search')}
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
        />
      </Group>
      {mails.isPending && <Loading />}
      {mails.error && <ErrorAlert error={mails.error} />}
      {!mails.isPending && rows.length === 0 && (
        <Text size="sm" c="dimmed">
          {status === 'skipped' && !q ? t('email.noSkipped') : t('email.noMails')}
        </Text>
      )}
      {rows.map((mail) => (
        <MailRow key={mail.id} botId={botId} mailboxId={mailboxId} mail={mail} />
      ))}
      {mails.hasNextPage && (
        <Button
          variant="default"
          size="xs"
          mt={4}
          style={{ alignSelf: 'flex-start' }}
          onClick={() => void mails.fetchNextPage()}
          loading={mails.isFetchingNextPage}
          data-testid="skipped-mails-more"
        >
          {t('common.more')}
        </Button>
      )}
    </Stack>
  );
}
