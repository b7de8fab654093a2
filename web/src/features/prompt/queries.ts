import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { botKeys } from '../bots/queries';

/** The cache keys of a bot's prompt versions and their diffs. */
export const promptKeys = {
  versions: (botId: string) => ['bot', botId, 'prompt-versions'] as const,
  diff: (botId: string, from: string, to: string) =>
    ['bot', botId, 'prompt-versions', 'diff', from, to] as const,
};

export function usePromptVersions(botId: string) {
  return useQuery({
    queryKey: promptKeys.versions(botId),
    queryFn: () => call(api.GET('/api/bots/{id}/prompt-versions', { params: { path: { id: botId } } })),
  });
}

/** The diff from `from` (the older version) to `to`. */
export function usePromptDiff(botId: string, from: string, to: string) {
  return useQuery({
    queryKey: promptKeys.diff(botId, from, to),
    queryFn: () =>
      call(
        api.GET('/api/bots/{id}/prompt-versions/{versionId}/diff', {
          params: { path: { id: botId, versionId: to }, query: { against: from } },
        }),
      ),
  });
}

/** After a change: the versions, and the bot (its current prompt), are read anew. */
function useRefresh(botId: string) {
  const queryClient = useQueryClient();
  return async () => {
    await queryClient.invalidateQueries({ queryKey: promptKeys.versions(botId) });
    void queryClient.invalidateQueries({ queryKey: botKeys.detail(botId), exact: true });
  };
}

export function useSavePrompt(botId: string) {
  const refresh = useRefresh(botId);
  return useMutation({
    mutationFn: (body: { prompt_text: string; version_name: string | null }) =>
      call(api.POST('/api/bots/{id}/prompt-versions', { params: { path: { id: botId } }, body })),
    onSuccess: refresh,
  });
}

export function useRestorePrompt(botId: string) {
  const refresh = useRefresh(botId);
  return useMutation({
    mutationFn: (versionId: string) =>
      call(
        api.POST('/api/bots/{id}/prompt-versions/{versionId}/restore', {
          params: { path: { id: botId, versionId } },
        }),
      ),
    onSuccess: refresh,
  });
}

export function useDeletePromptVersion(botId: string) {
  const refresh = useRefresh(botId);
  return useMutation({
    mutationFn: (versionId: string) =>
      call(
        api.DELETE('/api/bots/{id}/prompt-versions/{versionId}', {
          params: { path: { id: botId, versionId } },
        }),
      ),
    onSuccess: refresh,
  });
}
