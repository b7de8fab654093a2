import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';

/**
 * A change through the API after which what it changed is read anew: the queries under
 * `refreshes` (with `exact`, that query alone) are invalidated once it succeeded.
 */
export function useRefreshingMutation<TData, TVariables = void>(
  mutationFn: (variables: TVariables) => Promise<TData>,
  refreshes: QueryKey,
  { exact = false } = {},
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: refreshes, exact }),
  });
}
