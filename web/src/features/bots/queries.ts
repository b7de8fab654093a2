import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import type { Bot, BotPatch, Ok } from '../../api/types';
import { flowKeys } from '../flow/queries';

export const botKeys = {
  all: ['bots'] as const,
  /** The list, all bots (null) or those of one status. */
  list: (status: Bot['status'] | null) => ['bots', status] as const,
  /** One bot; what belongs to it (its go-live check, its prompt) is keyed under it. */
  detail: (botId: string) => ['bot', botId] as const,
  models: ['models'] as const,
};

export function useBot(botId: string) {
  return useQuery({
    queryKey: botKeys.detail(botId),
    queryFn: () => call(api.GET('/api/bots/{id}', { params: { path: { id: botId } } })),
  });
}

/** The models the deployment offers (for those who may change the bot). */
export function useModels(enabled: boolean) {
  return useQuery({
    queryKey: botKeys.models,
    queryFn: () => call(api.GET('/api/models')),
    enabled,
    staleTime: 5 * 60_000,
  });
}

/**
 * A change of the bot (settings, or switching it on and off): the bot is replaced by the
 * answer; the lists, the flow's pre-flight check and the go-live check are read anew.
 */
export function usePatchBot(
  botId: string,
  handlers: { onSaved: (bot: Bot) => void; onError?: (error: Error) => void },
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (patch: BotPatch) =>
      call(api.PATCH('/api/bots/{id}', { params: { path: { id: botId } }, body: patch })),
    onSuccess: (updated) => {
      queryClient.setQueryData(botKeys.detail(botId), updated);
      void queryClient.invalidateQueries({ queryKey: botKeys.all });
      void queryClient.invalidateQueries({ queryKey: flowKeys.preflight(botId) });
      void queryClient.invalidateQueries({ queryKey: goLiveKey(botId) });
      handlers.onSaved(updated);
    },
    onError: handlers.onError,
  });
}

export function useDeleteBot(botId: string, onDeleted: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => call(api.DELETE('/api/bots/{id}', { params: { path: { id: botId } } })),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: botKeys.detail(botId) });
      void queryClient.invalidateQueries({ queryKey: botKeys.all });
      onDeleted();
    },
  });
}

/** The tenant's bots (at most 100), all or those of one status. */
export function useBots(status: Bot['status'] | null = null) {
  return useQuery({
    queryKey: botKeys.list(status),
    queryFn: () =>
      call(api.GET('/api/bots', { params: { query: { limit: 100, ...(status ? { status } : {}) } } })),
  });
}

/** A new bot; the lists are read anew. */
export function useCreateBot(onCreated: (bot: Bot) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (values: { name: string; description: string }) =>
      call(
        api.POST('/api/bots', {
          body: { name: values.name.trim(), description: values.description.trim() || null },
        }),
      ),
    onSuccess: (bot) => {
      void queryClient.invalidateQueries({ queryKey: botKeys.all });
      onCreated(bot);
    },
  });
}

export type GoLive = Ok<'/api/bots/{id}/golive', 'get'>;

/** Under the bot's key: a change of the bot (or its channels, knowledge, flow) reads it anew. */
export const goLiveKey = (botId: string) => ['bot', botId, 'golive'] as const;

export function useGoLive(botId: string) {
  return useQuery({
    queryKey: goLiveKey(botId),
    queryFn: () => call(api.GET('/api/bots/{id}/golive', { params: { path: { id: botId } } })),
  });
}
