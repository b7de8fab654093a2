import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import type { Body, BlockBody } from '../../api/types';

type BlockPatch = Body<'/api/bots/{id}/blocks/{blockId}', 'patch'>;
type StepBody = Body<'/api/bots/{id}/flow-steps', 'post'>;
type StepPatch = Body<'/api/bots/{id}/flow-steps/{stepId}', 'patch'>;

/**
 * The cache keys of a bot's flow: its blocks, its steps and the pre-flight check that reads
 * both. Every change to one of them invalidates `all(botId)`: the check must follow.
 */
export const flowKeys = {
  all: (botId: string) => ['bot', botId, 'flow'] as const,
  blocks: (botId: string) => ['bot', botId, 'flow', 'blocks'] as const,
  steps: (botId: string) => ['bot', botId, 'flow', 'steps'] as const,
  preflight: (botId: string) => ['bot', botId, 'flow', 'preflight'] as const,
};

export function useBlocks(botId: string) {
  return useQuery({
    queryKey: flowKeys.blocks(botId),
    queryFn: () => call(api.GET('/api/bots/{id}/blocks', { params: { path: { id: botId } } })),
  });
}

export function useFlowSteps(botId: string) {
  return useQuery({
    queryKey: flowKeys.steps(botId),
    queryFn: () => call(api.GET('/api/bots/{id}/flow-steps', { params: { path: { id: botId } } })),
  });
}

export function usePreflight(botId: string) {
  return useQuery({
    queryKey: flowKeys.preflight(botId),
    queryFn: () => call(api.GET('/api/bots/{id}/preflight', { params: { path: { id: botId } } })),
  });
}

/** A mutation of the bot's flow: after it, blocks, steps and the pre-flight are read anew. */
function useFlowMutation<V, R>(botId: string, mutationFn: (variables: V) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: flowKeys.all(botId) }),
  });
}

export function useCreateBlock(botId: string) {
  return useFlowMutation(botId, (body: BlockBody) =>
    call(api.POST('/api/bots/{id}/blocks', { params: { path: { id: botId } }, body })),
  );
}

export function useUpdateBlock(botId: string, blockId: string) {
  return useFlowMutation(botId, (body: BlockPatch) =>
    call(api.PATCH('/api/bots/{id}/blocks/{blockId}', { params: { path: { id: botId, blockId } }, body })),
  );
}

export function useDeleteBlock(botId: string, blockId: string) {
  return useFlowMutation(botId, () =>
    call(api.DELETE('/api/bots/{id}/blocks/{blockId}', { params: { path: { id: botId, blockId } } })),
  );
}

export function useCreateStep(botId: string) {
  return useFlowMutation(botId, (body: StepBody) =>
    call(api.POST('/api/bots/{id}/flow-steps', { params: { path: { id: botId } }, body })),
  );
}

export function useUpdateStep(botId: string) {
  return useFlowMutation(botId, ({ stepId, body }: { stepId: string; body: StepPatch }) =>
    call(api.PATCH('/api/bots/{id}/flow-steps/{stepId}', { params: { path: { id: botId, stepId } }, body })),
  );
}

export function useDeleteStep(botId: string) {
  return useFlowMutation(botId, (stepId: string) =>
    call(api.DELETE('/api/bots/{id}/flow-steps/{stepId}', { params: { path: { id: botId, stepId } } })),
  );
}

/** The pre-flight's prompt-injection probe (changes nothing of the flow). */
export function useInjectPrompt(botId: string) {
  return useMutation({
    mutationFn: (prompt: string) =>
      call(
        api.POST('/api/bots/{id}/preflight/inject', {
          params: { path: { id: botId } },
          body: { injectedPrompt: prompt },
        }),
      ),
  });
}
