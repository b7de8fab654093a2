import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, call } from '../../api/client';

export { useSavedReplies } from '../saved-replies/queries';

export type InboxView = 'all' | 'mine' | 'unassigned';
export type InboxAction = 'claim' | 'take-over' | 'give-back' | 'close';

/** Conversations per page of the list; "more" loads the next. */
const INBOX_PAGE = 50;

/**
 * The cache keys of the inbox: the list, a conversation and the unread count all start with
 * `all`, which the live stream and every action read anew.
 */
export const inboxKeys = {
  all: ['inbox'] as const,
  list: (view: InboxView, botId: string | null) => ['inbox', 'list', view, botId] as const,
  conversation: (id: string) => ['inbox', 'conversation', id] as const,
  unread: ['inbox', 'unread'] as const,
};

export function useInboxList(view: InboxView, botId: string | null) {
  return useInfiniteQuery({
    queryKey: inboxKeys.list(view, botId),
    queryFn: ({ pageParam }) =>
      call(
        api.GET('/api/inbox', {
          params: {
            query: {
              view,
              limit: INBOX_PAGE,
              ...(botId ? { bot_id: botId } : {}),
              ...(pageParam ? { cursor: pageParam } : {}),
            },
          },
        }),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_cursor,
  });
}

/** Unread conversations for the navigation's badge (kept fresh by the live stream). */
export function useInboxUnread(enabled: boolean) {
  return useQuery({
    queryKey: inboxKeys.unread,
    queryFn: () => call(api.GET('/api/inbox/unread')),
    enabled,
    refetchInterval: 60_000,
  });
}

/** One conversation with its transcript; opening it (and each new message) marks it read. */
export function useInboxConversation(id: string) {
  const queryClient = useQueryClient();
  const detail = useQuery({
    queryKey: inboxKeys.conversation(id),
    queryFn: () => call(api.GET('/api/inbox/{id}', { params: { path: { id } } })),
  });
  const messages = detail.data?.message_count;
  useEffect(() => {
    void call(api.POST('/api/inbox/{id}/read', { params: { path: { id } } }))
      .then(() => queryClient.invalidateQueries({ queryKey: inboxKeys.unread }))
      .catch(() => undefined);
  }, [id, messages, queryClient]);
  return detail;
}

/** What a page adds to the inbox's mutations: its notice; the inbox is read anew either way. */
interface Handlers<TVariables> {
  onSuccess: (variables: TVariables) => void;
  onError: (error: unknown) => void;
}

function useInboxMutation<TVariables>(
  mutationFn: (variables: TVariables) => Promise<unknown>,
  handlers: Handlers<TVariables>,
) {
  const queryClient = useQueryClient();
  const reload = () => void queryClient.invalidateQueries({ queryKey: inboxKeys.all });
  return useMutation({
    mutationFn,
    onSuccess: (_data, variables) => {
      handlers.onSuccess(variables);
      reload();
    },
    onError: (error) => {
      handlers.onError(error);
      reload();
    },
  });
}

/** Claim, take over, give back to the bot, close. */
export function useInboxAction(id: string, handlers: Handlers<InboxAction>) {
  const path = { params: { path: { id } } };
  return useInboxMutation((kind: InboxAction) => {
    switch (kind) {
      case 'claim':
        return call(api.POST('/api/inbox/{id}/claim', path));
      case 'take-over':
        return call(api.POST('/api/inbox/{id}/take-over', path));
      case 'give-back':
        return call(api.POST('/api/inbox/{id}/give-back', path));
      case 'close':
        return call(api.POST('/api/inbox/{id}/close', path));
    }
  }, handlers);
}

/** A reply to the customer or an internal note. */
export function useInboxSend(id: string, handlers: Handlers<{ kind: 'reply' | 'note'; text: string }>) {
  return useInboxMutation(
    ({ kind, text }: { kind: 'reply' | 'note'; text: string }) =>
      kind === 'reply'
        ? call(api.POST('/api/inbox/{id}/reply', { params: { path: { id } }, body: { text } }))
        : call(api.POST('/api/inbox/{id}/notes', { params: { path: { id } }, body: { text } })),
    handlers,
  );
}

/** Assigns the conversation to a colleague (null: to nobody). */
export function useInboxAssign(id: string, handlers: Handlers<string | null>) {
  return useInboxMutation(
    (userId: string | null) =>
      call(api.POST('/api/inbox/{id}/assign', { params: { path: { id } }, body: { user_id: userId } })),
    handlers,
  );
}

/** Tells the customer's widget that I am typing (at most every 3 seconds). */
export function useTypingSignal(id: string): () => void {
  const last = useRef(0);
  return useCallback(() => {
    const now = Date.now();
    if (now - last.current < 3000) return;
    last.current = now;
    void call(api.POST('/api/inbox/{id}/typing', { params: { path: { id } } })).catch(() => undefined);
  }, [id]);
}

/** Whether the customer of the conversation is typing now (the inbox stream's `typing` events). */
export function useVisitorTyping(id: string): boolean {
  const [typing, setTyping] = useState(false);
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource('/api/inbox/stream', { withCredentials: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    source.addEventListener('typing', (event: MessageEvent<string>) => {
      try {
        const data = JSON.parse(event.data) as { conversation_id?: string; from?: string };
        if (data.conversation_id !== id || data.from !== 'visitor') return;
      } catch {
        return;
      }
      setTyping(true);
      clearTimeout(timer);
      timer = setTimeout(() => setTyping(false), 6000);
    });
    source.addEventListener('message', () => setTyping(false));
    return () => {
      clearTimeout(timer);
      source.close();
    };
  }, [id]);
  return typing;
}
