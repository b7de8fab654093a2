import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import type { operations } from '../../api/schema';
import type { Ok } from '../../api/types';

export type ConversationFilters = Omit<
  NonNullable<operations['listConversations']['parameters']['query']>,
  'cursor'
>;
export type ConversationReview = Ok<'/api/conversations/{id}', 'get'>;
export type ReviewMessage = ConversationReview['messages'][number];

/** The cache keys of the conversations feature: the filtered list and one conversation's review. */
export const conversationKeys = {
  list: (filters: ConversationFilters) => ['conversations', filters] as const,
  detail: (id: string) => ['conversation', id] as const,
};

export function useConversationList(filters: ConversationFilters) {
  return useInfiniteQuery({
    queryKey: conversationKeys.list(filters),
    queryFn: ({ pageParam }) =>
      call(
        api.GET('/api/conversations', {
          params: { query: { ...filters, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_cursor,
  });
}

export function useConversationReview(id: string) {
  return useQuery({
    queryKey: conversationKeys.detail(id),
    queryFn: () =>
      call(api.GET('/api/conversations/{id}', { params: { path: { id }, query: { limit: 200 } } })),
  });
}

/** Rates a bot reply good or bad with a note (null verdict takes the rating back). */
export function useReviewReply(conversationId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({
      messageId,
      verdict,
      note,
    }: {
      messageId: string;
      verdict: 'good' | 'bad' | null;
      note?: string;
    }) => {
      const path = { id: conversationId, messageId };
      return verdict === null
        ? call(api.DELETE('/api/conversations/{id}/messages/{messageId}/review', { params: { path } }))
        : call(
            api.PUT('/api/conversations/{id}/messages/{messageId}/review', {
              params: { path },
              body: { verdict, note: note ?? null },
            }),
          );
    },
    onSuccess: () =>
      void queryClient.invalidateQueries({ queryKey: conversationKeys.detail(conversationId) }),
  });
}

export function useReopenConversation(conversationId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      call(api.POST('/api/conversations/{id}/reopen', { params: { path: { id: conversationId } } })),
    onSuccess: () =>
      void queryClient.invalidateQueries({ queryKey: conversationKeys.detail(conversationId) }),
  });
}
