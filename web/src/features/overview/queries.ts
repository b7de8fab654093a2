import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import type { Ok } from '../../api/types';

/** The month's usage against the plan's quota. */
export function useUsage(enabled: boolean) {
  return useQuery({ queryKey: ['usage'], queryFn: () => call(api.GET('/api/usage')), enabled });
}

/** The knowledge base's first steps, until they are done. */
export function useKnowledgeOnboarding() {
  return useQuery({
    queryKey: ['knowledge-onboarding'],
    queryFn: () => call(api.GET('/api/knowledge/onboarding')),
  });
}

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
