import { Alert, Badge, Button, Card, Group, Paper, ScrollArea, Stack, Text, Textarea } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../api/client';
import type { ChatReply } from '../../api/types';
import { useCan } from '../../app/session';
import { EmptyState } from '../../components/states';
import { useBotId } from '../bots/BotPage';
import { BlockView, type Choice } from './BlockView';
import { parseSse } from './sse';
import { Sources } from './Sources';

interface Turn {
  role: 'user' | 'bot';
  text: string;
  reply?: ChatReply;
  error?: string;
}

/** Sends one message (or a block's chosen option) to the test-chat endpoint and streams the reply. */
async function streamReply(
  botId: string,
  message: string,
  conversationId: string | null,
  onDelta: (text: string) => void,
  choice?: Choice,
): Promise<ChatReply> {
  const response = await fetch(`/api/bots/${botId}/test-chat`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'x-requested-with': 'parley',
    },
    body: JSON.stringify({
      message,
      ...(conversationId ? { conversation_id: conversationId } : {}),
      ...(choice ? { choice } : {}),
    }),
  });
  if (!response.ok || !response.body) {
    const body: unknown = await response.json().catch(() => null);
    throw new Error(errorText(body, `${response.status}`, response.status).message);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const parsed = parseSse(buffer + value);
    buffer = parsed.rest;
    for (const event of parsed.events) {
      const data: unknown = JSON.parse(event.data);
      if (event.event === 'delta') onDelta((data as { text: string }).text);
      if (event.event === 'done') return data as ChatReply;
      if (event.event === 'error') throw new Error(errorText(data, 'error').message);
    }
  }
  throw new Error('stream ended early');
}

export function TestChatTab() {
  const { t } = useTranslation();
  const botId = useBotId();
  const canChat = useCan('bot:edit');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [conversationId, setConversationId] = useState<string | null>(null);
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const log = useRef<HTMLDivElement>(null);
  // The log follows the newest message, also while a reply streams in.
  useEffect(() => {
    if (log.current) log.current.scrollTop = log.current.scrollHeight;
  }, [turns]);

  if (!canChat) return <EmptyState title={t('chat.title')} text={t('chat.noPermission')} />;

  const send = async (typed: string = message, choice?: Choice) => {
    const text = typed.trim();
    if (!text || busy) return;
    if (!choice) setMessage('');
    setBusy(true);
    setTurns((list) => [...list, { role: 'user', text }, { role: 'bot', text: '' }]);
    const update = (change: (turn: Turn) => Turn) =>
      setTurns((list) => [...list.slice(0, -1), change(list[list.length - 1]!)]);
    try {
      const reply = await streamReply(
        botId,
        text,
        conversationId,
        (delta) => update((turn) => ({ ...turn, text: turn.text + delta })),
        choice,
      );
      setConversationId(reply.conversation_id);
      update(() => ({ role: 'bot', text: reply.reply, reply }));
    } catch (error) {
      update(() => ({ role: 'bot', text: '', error: (error as Error).message }));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card withBorder>
      <Group justify="space-between" mb="sm">
        <Text size="sm" c="dimmed">
          {t('chat.hint')}
        </Text>
        <Button
          variant="default"
          size="xs"
          onClick={() => {
            setTurns([]);
            setConversationId(null);
          }}
        >
          {t('chat.new')}
        </Button>
      </Group>
      <ScrollArea h={360} type="auto" mb="sm" viewportRef={log}>
        <Stack gap="xs" role="log" aria-live="polite" aria-label={t('chat.title')}>
          {turns.length === 0 && <Text c="dimmed">{t('chat.empty')}</Text>}
          {turns.map((turn, index) => (
            <Paper
              key={index}
              p="sm"
              radius="md"
              bg={turn.role === 'user' ? 'indigo.0' : 'gray.0'}
              ml={turn.role === 'user' ? 'xl' : 0}
              mr={turn.role === 'bot' ? 'xl' : 0}
              data-testid={turn.role === 'bot' ? 'bot-turn' : 'user-turn'}
            >
              <Badge size="xs" variant="light" mb={4}>
                {turn.role === 'user' ? t('chat.you') : t('chat.bot')}
              </Badge>
              {turn.error ? (
                <Alert color="red" role="alert" p="xs">
                  {turn.error}
                </Alert>
              ) : (
                <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                  {turn.text || '…'}
                </Text>
              )}
              {turn.reply?.blocks?.map((block) => (
                <BlockView
                  key={block.id}
                  block={block}
                  // Only the latest reply's options can be chosen.
                  disabled={busy || index !== turns.length - 1}
                  onChoose={(title, choice) => void send(title, choice)}
                />
              ))}
              {turn.reply && <Sources reply={turn.reply} />}
            </Paper>
          ))}
        </Stack>
      </ScrollArea>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <Group align="flex-end" wrap="nowrap">
          <Textarea
            label={t('chat.message')}
            value={message}
            onChange={(e) => setMessage(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey) {
                e.preventDefault();
                void send();
              }
            }}
            autosize
            minRows={1}
            maxRows={4}
            style={{ flex: 1 }}
          />
          <Button type="submit" loading={busy}>
            {t('chat.send')}
          </Button>
        </Group>
      </form>
    </Card>
  );
}
