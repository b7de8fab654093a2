import { useQuery } from '@tanstack/react-query';
import { useRefreshingMutation } from '../../api/mutations';
import { api, call } from '../../api/client';

export const apiKeyKeys = { all: ['api-keys'] as const };

export function useApiKeys(enabled: boolean) {
  return useQuery({ queryKey: apiKeyKeys.all, queryFn: () => call(api.GET('/api/api-keys')), enabled });
}

/** A new key (its secret is in the result, shown once); the list is read anew. */
export function useGenerateApiKey() {
  return useRefreshingMutation(
    () => call(api.POST('/api/api-keys', { body: { name: 'Dashboard' } })),
    apiKeyKeys.all,
  );
}

export function useRevokeApiKey() {
  return useRefreshingMutation(
    (id: string) => call(api.DELETE('/api/api-keys/{id}', { params: { path: { id } } })),
    apiKeyKeys.all,
  );
}
