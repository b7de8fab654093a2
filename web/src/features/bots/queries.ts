import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import type { Ok } from '../../api/types';

export type GoLive = Ok<'/api/bots/{id}/golive', 'get'>;

/** Under the bot's key: a change of the bot (or its channels, knowledge, flow) reads it anew. */
export const goLiveKey = (botId: string) => ['bot', botId, 'golive'] as const;

export function useGoLive(botId: string) {
  return useQuery({
    queryKey: goLiveKey(botId),
    queryFn: () => call(api.GET('/api/bots/{id}/golive', { params: { path: { id: botId } } })),
  });
}
