import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import type { Body, Ok } from '../../api/types';
import { useRefreshingMutation } from '../../api/mutations';
import { goLiveKey } from '../bots/queries';

export type WidgetSettings = Ok<'/api/bots/{id}/widget', 'get'>;
export type WidgetPatch = Body<'/api/bots/{id}/widget', 'put'>;

/** Cache keys of a bot's channels; a change also invalidates the bot's go-live checklist. */
export const channelKeys = {
  widget: (botId: string) => ['bot', botId, 'channels', 'widget'] as const,
  golive: goLiveKey,
};

export function useWidgetSettings(botId: string) {
  return useQuery({
    queryKey: channelKeys.widget(botId),
    queryFn: () => call(api.GET('/api/bots/{id}/widget', { params: { path: { id: botId } } })),
  });
}

function useSettingsMutation<T>(botId: string, mutationFn: (value: T) => Promise<WidgetSettings>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: (settings) => {
      queryClient.setQueryData(channelKeys.widget(botId), settings);
      void queryClient.invalidateQueries({ queryKey: channelKeys.golive(botId) });
    },
  });
}

export function useUpdateWidget(botId: string) {
  return useSettingsMutation(botId, (body: WidgetPatch) =>
    call(api.PUT('/api/bots/{id}/widget', { params: { path: { id: botId } }, body })),
  );
}

/** A new publishable key: sessions of the old one end. */
export function useRotatePublishableKey(botId: string) {
  return useSettingsMutation(botId, () =>
    call(api.POST('/api/bots/{id}/widget/publishable-key', { params: { path: { id: botId } } })),
  );
}

/** A new identity secret; the result holds it this once. */
export function useRotateIdentitySecret(botId: string) {
  return useRefreshingMutation(
    () => call(api.POST('/api/bots/{id}/widget/identity-secret', { params: { path: { id: botId } } })),
    channelKeys.widget(botId),
  );
}

// --- e-mail ---

export type Mailbox = Ok<'/api/bots/{id}/mailboxes/{mailboxId}', 'get'>;
export type MailboxBody = Body<'/api/bots/{id}/mailboxes', 'post'>;
export type MailboxPatch = Body<'/api/bots/{id}/mailboxes/{mailboxId}', 'patch'>;
export type ReceivedMail = Ok<'/api/bots/{id}/mailboxes/{mailboxId}/mails', 'get'>['data'][number];
export type MailboxCheck = Ok<'/api/bots/{id}/mailboxes/{mailboxId}/test', 'post'>;

/** Cache keys: everything of a bot's mailboxes lies under `all(botId)`, so a change is one invalidation. */
export const mailboxKeys = {
  all: (botId: string) => ['mailboxes', botId] as const,
  list: (botId: string) => ['mailboxes', botId, 'list'] as const,
  mails: (botId: string, mailboxId: string) => ['mailboxes', botId, mailboxId, 'mails'] as const,
  conversationMails: (conversationId: string) => ['conversation', conversationId, 'mails'] as const,
};

export function useMailboxes(botId: string) {
  return useQuery({
    queryKey: mailboxKeys.list(botId),
    queryFn: async () =>
      (await call(api.GET('/api/bots/{id}/mailboxes', { params: { path: { id: botId } } }))).data,
  });
}

/** The mails of a mailbox that were not answered, with their reasons: newest first, a page at a time. */
export function useSkippedMails(botId: string, mailboxId: string, enabled: boolean) {
  return useInfiniteQuery({
    queryKey: mailboxKeys.mails(botId, mailboxId),
    enabled,
    queryFn: ({ pageParam }) =>
      call(
        api.GET('/api/bots/{id}/mailboxes/{mailboxId}/mails', {
          params: {
            path: { id: botId, mailboxId },
            query: { status: 'skipped', limit: 20, ...(pageParam ? { cursor: pageParam } : {}) },
          },
        }),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_cursor,
  });
}

/** The received mails of a mailbox, newest first, a page at a time: one status (or all) and a search. */
export function useMailboxMails(
  botId: string,
  mailboxId: string,
  filter: { status: 'skipped' | 'failed' | 'answered' | null; q: string },
) {
  return useInfiniteQuery({
    queryKey: [...mailboxKeys.mails(botId, mailboxId), filter.status, filter.q] as const,
    queryFn: ({ pageParam }) =>
      call(
        api.GET('/api/bots/{id}/mailboxes/{mailboxId}/mails', {
          params: {
            path: { id: botId, mailboxId },
            query: {
              limit: 20,
              ...(filter.status ? { status: filter.status } : {}),
              ...(filter.q.trim() ? { q: filter.q.trim() } : {}),
              ...(pageParam ? { cursor: pageParam } : {}),
            },
          },
        }),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_cursor,
  });
}

/** "Trotzdem beantworten": the bot answers a mail it had skipped, once. */
export function useAnswerMailAnyway(botId: string, mailboxId: string) {
  return useRefreshingMutation(
    (mailId: string) =>
      call(
        api.POST('/api/bots/{id}/mailboxes/{mailboxId}/mails/{mailId}/answer', {
          params: { path: { id: botId, mailboxId, mailId } },
        }),
      ),
    mailboxKeys.all(botId),
  );
}

/** "An den Posteingang": a skipped mail waits in the inbox for a person. */
export function useSendMailToInbox(botId: string, mailboxId: string) {
  return useRefreshingMutation(
    (mailId: string) =>
      call(
        api.POST('/api/bots/{id}/mailboxes/{mailboxId}/mails/{mailId}/inbox', {
          params: { path: { id: botId, mailboxId, mailId } },
        }),
      ),
    mailboxKeys.all(botId),
  );
}

/** The address of the raw mail's download (a plain link: the session cookie authorises it). */
export function rawMailUrl(botId: string, mailboxId: string, mailId: string): string {
  return `/api/bots/${encodeURIComponent(botId)}/mailboxes/${encodeURIComponent(mailboxId)}/mails/${encodeURIComponent(mailId)}/raw`;
}

/** The mails received in an e-mail conversation, newest first, a page at a time (only asked for when the conversation is one). */
export function useConversationMails(conversationId: string, enabled: boolean) {
  return useInfiniteQuery({
    queryKey: mailboxKeys.conversationMails(conversationId),
    enabled,
    queryFn: ({ pageParam }) =>
      call(
        api.GET('/api/conversations/{id}/mails', {
          params: { path: { id: conversationId }, query: pageParam ? { cursor: pageParam } : {} },
        }),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_cursor,
  });
}

export function useSaveMailbox(botId: string) {
  return useRefreshingMutation(
    (input: { id: string; patch: MailboxPatch } | { id?: undefined; body: MailboxBody }) =>
      'patch' in input
        ? call(
            api.PATCH('/api/bots/{id}/mailboxes/{mailboxId}', {
              params: { path: { id: botId, mailboxId: input.id } },
              body: input.patch,
            }),
          )
        : call(api.POST('/api/bots/{id}/mailboxes', { params: { path: { id: botId } }, body: input.body })),
    mailboxKeys.all(botId),
  );
}

export function useDeleteMailbox(botId: string) {
  return useRefreshingMutation(
    (mailboxId: string) =>
      call(
        api.DELETE('/api/bots/{id}/mailboxes/{mailboxId}', { params: { path: { id: botId, mailboxId } } }),
      ),
    mailboxKeys.all(botId),
  );
}

export function useCheckMailbox(botId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (mailboxId: string) =>
      call(
        api.POST('/api/bots/{id}/mailboxes/{mailboxId}/test', { params: { path: { id: botId, mailboxId } } }),
      ),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: mailboxKeys.all(botId) }),
  });
}
