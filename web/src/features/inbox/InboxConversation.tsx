import { Alert, Badge, Button, Card, Group, Select, Stack, Text, Textarea, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { customerName } from '../../labels';
import { useCan, useMe } from '../../app/session';
import { notify } from '../../components/notify';
import { ErrorAlert, errorMessage, Loading } from '../../components/states';
import { formatDateTime } from '../../format';
import { useTeam } from '../users/queries';
import { Timeline } from './Timeline';
import {
  useInboxAction,
  useInboxAssign,
  useInboxConversation,
  useInboxSend,
  useSavedReplies,
  useTypingSignal,
  useVisitorTyping,
} from './queries';
import { expandSavedReplies } from './saved-replies';
import { VisitorPanel } from './VisitorPanel';
import { STATE_COLOUR } from './state-colour';
import { WhatsAppWindow } from './TemplateComposer';

/** The selected conversation: transcript, notes, and what staff may do with it. */
export function InboxConversation({ id }: { id: string }) {
  const { t, i18n } = useTranslation();
  const me = useMe();
  const canWork = useCan('inbox:work');
  const canManage = useCan('user:manage');
  const [text, setText] = useState('');
  const [assignee, setAssignee] = useState<string | null>(null);
  const detail = useInboxConversation(id);
  const saved = useSavedReplies(canWork);
  const typingSignal = useTypingSignal(id);
  const visitorTyping = useVisitorTyping(id);
  const team = useTeam(canManage);
  const fail = (error: unknown) => notify(errorMessage(error, t('inbox.failed')), 'red');
  const action = useInboxAction(id, { onSuccess: (kind) => notify(t(`inbox.done.${kind}`)), onError: fail });
  const send = useInboxSend(id, {
    onSuccess: ({ kind }) => {
      setText('');
      notify(t(`inbox.done.${kind}`));
    },
    onError: fail,
  });
  const assign = useInboxAssign(id, { onSuccess: () => notify(t('inbox.done.assign')), onError: fail });

  if (detail.isPending) return <Loading />;
  if (detail.error) return <ErrorAlert error={detail.error} onRetry={() => void detail.refetch()} />;
  const c = detail.data;
  const mine = c.assigned_user_id === me.user.id;
  const busy = action.isPending || send.isPending || assign.isPending;
  const colleagues = (team.data?.data ?? []).filter(
    (u) => u.is_active && ['owner', 'admin', 'editor', 'agent'].includes(u.role),
  );

  return (
    <Card withBorder>
      <Group justify="space-between" mb="xs">
        <div>
          <Title order={3}>{customerName(c, t) ?? t('inbox.anonymous')}</Title>
          <Text size="sm" c="dimmed">
            {c.bot_name} · {t(`channels.${c.channel}`, { defaultValue: c.channel })}
          </Text>
        </div>
        <Badge color={STATE_COLOUR[c.state]} data-testid="inbox-state">
          {t(`inbox.state.${c.state}`)}
          {c.assigned_user_name ? ` · ${c.assigned_user_name}` : ''}
        </Badge>
      </Group>
      {c.handover_question && (
        <Alert
          color="orange"
          mb="sm"
          title={c.handover_reason ? t(`inbox.reasons.${c.handover_reason}`) : undefined}
        >
          <Text size="sm" fw={600}>
            {c.handover_question}
          </Text>
        </Alert>
      )}
      <Timeline messages={c.messages} refusals={c.refusals} />
      {visitorTyping && (
        <Text size="sm" c="dimmed" fs="italic" mb="xs" data-testid="visitor-typing">
          {t('inbox.visitorTyping')}
        </Text>
      )}
      <VisitorPanel visitor={c.visitor} />
      {c.notes.length > 0 && (
        <Stack gap={4} mb="sm">
          <Text size="sm" fw={600}>
            {t('inbox.notes')}
          </Text>
          {c.notes.map((n) => (
            <Text key={n.id} size="sm" bg="var(--mantine-color-yellow-light)" px={6} py={2}>
              {n.author_name ?? ''} ({formatDateTime(n.created_at, i18n.language)}): {n.content}
            </Text>
          ))}
        </Stack>
      )}
      {c.channel === 'whatsapp' && (
        <WhatsAppWindow
          id={id}
          canSend={canWork && c.state !== 'closed' && !(c.state === 'with_person' && !mine)}
        />
      )}
      {canWork && c.state !== 'closed' && (
        <>
          <Textarea
            label={t('inbox.replyLabel')}
            value={text}
            onChange={(e) => {
              const next = expandSavedReplies(e.currentTarget.value, saved.data?.data ?? []);
              setText(next);
              if (next.trim()) typingSignal();
            }}
            description={t('inbox.savedRepliesHint')}
            autosize
            minRows={2}
            maxLength={4000}
          />
          <Group mt="xs" gap="xs">
            <Button
              onClick={() => send.mutate({ kind: 'reply', text })}
              disabled={!text.trim() || busy || (c.state === 'with_person' && !mine)}
            >
              {t('inbox.reply')}
            </Button>
            <Button
              variant="light"
              onClick={() => send.mutate({ kind: 'note', text })}
              disabled={!text.trim() || busy}
            >
              {t('inbox.note')}
            </Button>
            {c.state === 'waiting' && (
              <Button variant="outline" onClick={() => action.mutate('claim')} disabled={busy}>
                {t('inbox.claim')}
              </Button>
            )}
            {c.state === 'bot' && (
              <Button variant="outline" onClick={() => action.mutate('take-over')} disabled={busy}>
                {t('inbox.takeOver')}
              </Button>
            )}
            {c.state !== 'bot' && (
              <Button variant="outline" onClick={() => action.mutate('give-back')} disabled={busy}>
                {t('inbox.giveBack')}
              </Button>
            )}
            <Button variant="subtle" color="gray" onClick={() => action.mutate('close')} disabled={busy}>
              {t('inbox.close')}
            </Button>
          </Group>
          {c.state !== 'bot' && (
            <Group mt="xs" gap="xs" align="flex-end">
              {canManage ? (
                <Select
                  label={t('inbox.assignTo')}
                  value={assignee}
                  onChange={setAssignee}
                  data={colleagues.map((u) => ({
                    value: u.id,
                    label: [u.first_name, u.last_name].filter(Boolean).join(' ') || u.email,
                  }))}
                  w={220}
                />
              ) : null}
              <Button
                variant="light"
                onClick={() => assign.mutate(canManage ? assignee : me.user.id)}
                disabled={busy || (canManage && !assignee)}
              >
                {canManage ? t('inbox.assign') : t('inbox.assignMe')}
              </Button>
            </Group>
          )}
        </>
      )}
    </Card>
  );
}
