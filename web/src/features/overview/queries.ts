import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import type { Ok } from '../../api/types';

export type OverviewNumbers = Ok<'/api/overview/numbers', 'get'>;

/** The cache keys of the overview's numbers: per bot (null = all) and period. */
export const numbersKeys = {
  numbers: (botId: string | null, from: string, to: string) => ['overview-numbers', botId, from, to] as const,
};

export function useOverviewNumbers(botId: string | null, from: string, to: string, enabled: boolean) {
  return useQuery({
    queryKey: numbersKeys.numbers(botId, from, to),
    queryFn: () =>
      call(
        api.GET('/api/overview/numbers', {
          params: { query: { from, to, ...(botId ? { bot_id: botId } : {}) } },
        }),
      ),
    enabled,
  });
}
