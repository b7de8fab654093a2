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

/** A change of the prompt's versions; after it the versions, and the bot (its current prompt), are read anew. */
function usePromptChange<TVariables, TData>(
  botId: string,
  mutationFn: (variables: TVariables) => Promise<TData>,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: promptKeys.versions(botId) });
      void queryClient.invalidateQueries({ queryKey: botKeys.detail(botId), exact: true });
    },
  });
}

export function useSavePrompt(botId: string) {
  return usePromptChange(botId, (body: { prompt_text: string; version_name: string | null }) =>
    call(api.POST('/api/bots/{id}/prompt-versions', { params: { path: { id: botId } }, body })),
  );
}

/** The path of one version (restoring and deleting it). */
const versionPath = (botId: string, versionId: string) => ({ params: { path: { id: botId, versionId } } });

export function useRestorePrompt(botId: string) {
  return usePromptChange(botId, (versionId: string) =>
    call(api.POST('/api/bots/{id}/prompt-versions/{versionId}/restore', versionPath(botId, versionId))),
  );
}

export function useDeletePromptVersion(botId: string) {
  return usePromptChange(botId, (versionId: string) =>
    call(api.DELETE('/api/bots/{id}/prompt-versions/{versionId}', versionPath(botId, versionId))),
  );
}
