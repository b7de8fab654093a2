import { useQuery } from '@tanstack/react-query';
import { ApiError, api, call } from '../../api/client';
import type { Me } from '../../api/types';
import { markSignedIn, sessionGeneration } from '../../app/session-state';

/*
 * The session as the signed-in pages read it. (The sign-in page itself asks the API with fetch,
 * outside the query cache: see LoginPage.tsx.)
 */
export const authKeys = {
  me: ['me'] as const,
};

/**
 * GET /api/me. A 401 for a request sent before the latest sign-in speaks of the old session:
 * asked again instead of signing the user out.
 */
export async function fetchMe(): Promise<Me> {
  const generation = sessionGeneration();
  try {
    const me = await call(api.GET('/api/me'));
    if (generation === sessionGeneration()) markSignedIn(me, { sameGeneration: true });
    return me;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401 && generation !== sessionGeneration())
      return fetchMe();
    throw error;
  }
}

/** The signed-in user, their tenant and permissions; an error when nobody is signed in. */
export function useMeQuery() {
  return useQuery({ queryKey: authKeys.me, queryFn: fetchMe, retry: false, staleTime: 60_000 });
}
