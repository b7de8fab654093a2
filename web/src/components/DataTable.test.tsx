import { MantineProvider, Table } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadTexts } from '../i18n';
import { DataTable } from './DataTable';
import { mediaQueryList } from '../test/media';

function phoneScreen(phone: boolean) {
  vi.spyOn(window, 'matchMedia').mockImplementation((query: string) => mediaQueryList(query, phone));
}

const renderList = (props: Partial<Parameters<typeof DataTable>[0]> = {}) =>
  render(
    <MantineProvider>
      <DataTable columns={[{ label: 'Kontakt' }, { label: 'Aktionen' }]} data-testid="list" {...props}>
        <Table.Tr>
          <Table.Td>Ada</Table.Td>
          <Table.Td>
            <button>Stornieren</button>
          </Table.Td>
        </Table.Tr>
      </DataTable>
    </MantineProvider>,
  );

describe('DataTable', () => {
  beforeAll(async () => {
    await loadTexts();
  });
  afterEach(() => vi.restoreAllMocks());

  it('is a table with column headers on a wide screen', () => {
    phoneScreen(false);
    renderList();
    expect(screen.getByTestId('list')).toHaveAttribute('data-layout', 'table');
    expect(screen.getByRole('columnheader', { name: 'Kontakt' })).toBeInTheDocument();
  });

  it('shows each row as a card on a phone, every cell under its column name', () => {
    phoneScreen(true);
    const { container } = renderList();
    expect(screen.getByTestId('list')).toHaveAttribute('data-layout', 'cards');
    const css = [...container.querySelectorAll('style')].map((style) => style.textContent).join('\n');
    expect(css).toContain('td:nth-child(1)::before { content: "Kontakt"; }');
    expect(css).toContain('td:nth-child(2)::before { content: "Aktionen"; }');
    expect(screen.getByRole('button', { name: 'Stornieren' })).toBeInTheDocument();
  });

  it('shows the loading, error and empty states instead of the table', () => {
    phoneScreen(false);
    const { rerender } = renderList({ loading: true });
    expect(screen.getByRole('status')).toBeInTheDocument();
    rerender(
      <MantineProvider>
        <DataTable columns={[]} isEmpty empty={<p>Noch keine Buchungen</p>} />
      </MantineProvider>,
    );
    expect(screen.getByText('Noch keine Buchungen')).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });
});
