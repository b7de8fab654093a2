import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';

export const apiKeyKeys = { all: ['api-keys'] as const };

export function useApiKeys(enabled: boolean) {
  return useQuery({ queryKey: apiKeyKeys.all, queryFn: () => call(api.GET('/api/api-keys')), enabled });
}

/** A new key (its secret is in the result, shown once); the list is read anew. */
export function useGenerateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => call(api.POST('/api/api-keys', { body: { name: 'Dashboard' } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: apiKeyKeys.all }),
  });
}

export function useRevokeApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call(api.DELETE('/api/api-keys/{id}', { params: { path: { id } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: apiKeyKeys.all }),
  });
}
