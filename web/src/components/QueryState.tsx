import type { ReactNode } from 'react';
import type { ListQuery } from './DataTable';
import { ErrorAlert, Loading } from './states';

/**
 * What a query shows while it loads (a spinner), when it failed (the error, with retry), when
 * it found nothing (`empty`) and when it has its data (`children`).
 */
export function QueryState<T>({
  query,
  isEmpty,
  empty,
  children,
}: {
  query: ListQuery & { data: T | undefined };
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading />;
  if (query.error || query.data === undefined)
    return <ErrorAlert error={query.error} onRetry={() => void query.refetch()} />;
  if (isEmpty?.(query.data)) return <>{empty}</>;
  return <>{children(query.data)}</>;
}
