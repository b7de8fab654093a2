import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ComponentType } from 'react';
import { ApiError } from '../api/client';

/*
 * Server state (TanStack Query) for the pages that read the API. Loaded with the first such
 * page, not with the sign-in page, which needs none of it.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // Client errors (403, 404, …) are answers, not outages: no retries for them.
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});

/** A page component inside the one query client. */
export function withQueries(Page: ComponentType): ComponentType {
  return function WithQueries() {
    return (
      <QueryClientProvider client={queryClient}>
        <Page />
      </QueryClientProvider>
    );
  };
}
