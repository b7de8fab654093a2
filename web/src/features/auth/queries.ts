import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import type { Me } from '../../api/types';

/*
 * The session as the signed-in pages read it. (The sign-in page itself asks the API with fetch,
 * outside the query cache: see LoginPage.tsx.)
 */
export const authKeys = {
  me: ['me'] as const,
};

export function fetchMe(): Promise<Me> {
  return call(api.GET('/api/me'));
}

/** The signed-in user, their tenant and permissions; an error when nobody is signed in. */
export function useMeQuery() {
  return useQuery({ queryKey: authKeys.me, queryFn: fetchMe, retry: false, staleTime: 60_000 });
}
