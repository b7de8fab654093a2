import { Table, type TableProps } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useId, type ReactNode } from 'react';
import { ErrorAlert, Loading } from './states';

export interface DataColumn {
  label: string;
  align?: 'left' | 'right';
}
/** A column: its label alone (left-aligned), or with its alignment. */
export type Column = DataColumn | string;

const columnOf = (column: Column): DataColumn => (typeof column === 'string' ? { label: column } : column);

/** Below this width a table shows each row as a card: no column is hidden behind a scroll. */
export const PHONE_QUERY = '(max-width: 47.99em)';

/** CSS that lays the rows out as cards, each cell under its column's name. */
function cardStyles(scope: string, columns: readonly DataColumn[]): string {
  const labels = columns
    .map((column, index) =>
      column.label
        ? `.${scope} td:nth-child(${index + 1})::before { content: ${JSON.stringify(column.label)}; }`
        : '',
    )
    .join('\n');
  return `
.${scope} thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
.${scope}, .${scope} tbody { display: block; }
.${scope} tr { display: block; border: 1px solid var(--mantine-color-gray-3); border-radius: var(--mantine-radius-md); padding: var(--mantine-spacing-xs) var(--mantine-spacing-sm); margin-bottom: var(--mantine-spacing-sm); }
.${scope} td { display: block; border: 0 !important; padding: 4px 0 !important; text-align: left !important; }
.${scope} td::before { display: block; font-size: var(--mantine-font-size-xs); color: var(--mantine-color-dimmed); }
.${scope} td:empty, .${scope} td:has(> :only-child:empty) { display: none; }
${labels}`;
}

/** What a list's query tells the table: still loading, failed (retry reads it again). */
export interface ListQuery {
  isPending: boolean;
  error: unknown;
  refetch: () => unknown;
}

/**
 * The one list of the dashboard: a table on wide screens, cards on a phone (every action in
 * reach), with loading, error and empty states. Rows are ordinary `Table.Tr` elements.
 */
export function DataTable({
  columns,
  children,
  query,
  loading = query?.isPending,
  error = query?.error,
  onRetry = query ? () => void query.refetch() : undefined,
  empty,
  isEmpty,
  minWidth = 560,
  ...tableProps
}: {
  columns: readonly Column[];
  children?: ReactNode;
  /** The list's query: its loading and error states (each may be given alone instead). */
  query?: ListQuery;
  loading?: boolean;
  error?: unknown;
  onRetry?: () => void;
  /** Shown instead of the table when `isEmpty`. */
  empty?: ReactNode;
  isEmpty?: boolean;
  /** Width below which the wide table scrolls (never on a phone: there it is cards). */
  minWidth?: number;
} & Omit<TableProps, 'children'>) {
  const cells = columns.map(columnOf);
  const phone = useMediaQuery(PHONE_QUERY, false, { getInitialValueInEffect: false });
  const scope = `dt${useId().replace(/[^a-zA-Z0-9]/g, '')}`;
  if (loading) return <Loading />;
  if (error) return <ErrorAlert error={error} onRetry={onRetry} />;
  if (isEmpty) return <>{empty}</>;
  const table = (
    <Table {...tableProps} className={phone ? scope : undefined} data-layout={phone ? 'cards' : 'table'}>
      <Table.Thead>
        <Table.Tr>
          {cells.map((column, index) => (
            <Table.Th key={index} ta={column.align}>
              {column.label}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>{children}</Table.Tbody>
    </Table>
  );
  if (phone) {
    return (
      <>
        <style>{cardStyles(scope, cells)}</style>
        {table}
      </>
    );
  }
  return <Table.ScrollContainer minWidth={minWidth}>{table}</Table.ScrollContainer>;
}
