import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { useRefreshingMutation } from '../../api/mutations';
import type { Ok } from '../../api/types';

/** The cache key of the team's saved replies (the inbox's /name and the settings list). */
export const savedReplyKeys = { all: ['saved-replies'] as const };

export type SavedReply = Ok<'/api/saved-replies', 'get'>['data'][number];

/** The team's saved replies (typed as /name in the reply box). */
export function useSavedReplies(enabled: boolean) {
  return useQuery({
    queryKey: savedReplyKeys.all,
    queryFn: () => call(api.GET('/api/saved-replies')),
    enabled,
    staleTime: 60_000,
  });
}

export function useCreateSavedReply() {
  return useRefreshingMutation(
    (body: { name: string; content: string }) => call(api.POST('/api/saved-replies', { body })),
    savedReplyKeys.all,
    { exact: true },
  );
}

export function useUpdateSavedReply() {
  return useRefreshingMutation(
    ({ id, ...body }: { id: string; name: string; content: string }) =>
      call(api.PATCH('/api/saved-replies/{id}', { params: { path: { id } }, body })),
    savedReplyKeys.all,
    { exact: true },
  );
}

export function useDeleteSavedReply() {
  return useRefreshingMutation(
    (id: string) => call(api.DELETE('/api/saved-replies/{id}', { params: { path: { id } } })),
    savedReplyKeys.all,
    { exact: true },
  );
}
