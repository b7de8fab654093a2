import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import type { Bot, Ok } from '../../api/types';

export const botKeys = {
  all: ['bots'] as const,
  /** The list, all bots (null) or those of one status. */
  list: (status: Bot['status'] | null) => ['bots', status] as const,
};

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
