import type { ReactNode } from 'react';
import { DataTable, type Column, type ListQuery } from '../../components/DataTable';
import { NoneYet } from '../../components/NoneYet';
import { Section } from '../../components/Section';

/** A list on the contact's page: a titled section with its table, or a word when it is empty. */
export function ContactList<T>({
  title,
  testId,
  query,
  none,
  columns,
  minWidth,
  row,
}: {
  title: string;
  testId: string;
  query: ListQuery & { data?: { data: T[] } };
  /** Said when the list is empty. */
  none: string;
  columns: readonly Column[];
  minWidth: number;
  row: (item: T) => ReactNode;
}) {
  return (
    <Section title={title} testId={testId}>
      <DataTable
        columns={columns}
        query={query}
        isEmpty={query.data?.data.length === 0}
        empty={<NoneYet text={none} />}
        minWidth={minWidth}
      >
        {query.data?.data.map(row)}
      </DataTable>
    </Section>
  );
}
