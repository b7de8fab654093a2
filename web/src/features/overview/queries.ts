import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client';

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
