import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { ChatBlock } from '../../api/types';
import { BlockView } from './BlockView';

const block = (type: ChatBlock['type']): ChatBlock => ({
  id: 'b0000000-0000-4000-8000-000000000001',
  type,
  name: 'Kurse',
  items: [
    { id: 'yoga', title: 'Yoga', description: 'Montags 18 Uhr' },
    { id: 'pilates', title: 'Pilates', description: null },
  ],
});

const renderBlock = (type: ChatBlock['type'], onChoose = vi.fn(), disabled = false) =>
  render(
    <MantineProvider>
      <BlockView block={block(type)} disabled={disabled} onChoose={onChoose} />
    </MantineProvider>,
  );

describe('BlockView', () => {
  it('shows buttons and sends the chosen option as title and choice', async () => {
    const onChoose = vi.fn();
    renderBlock('buttons', onChoose);
    expect(screen.getByRole('group')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Pilates' }));
    expect(onChoose).toHaveBeenCalledWith('Pilates', {
      block_id: 'b0000000-0000-4000-8000-000000000001',
      item_id: 'pilates',
    });
  });

  it('shows a list with descriptions, usable by keyboard', async () => {
    const onChoose = vi.fn();
    renderBlock('list', onChoose);
    expect(screen.getByText('Montags 18 Uhr')).toBeInTheDocument();
    screen.getByRole('button', { name: /Yoga/ }).focus();
    await userEvent.keyboard('{Enter}');
    expect(onChoose).toHaveBeenCalledWith('Yoga', expect.objectContaining({ item_id: 'yoga' }));
  });

  it('offers nothing to choose when disabled (an older reply, or while sending)', async () => {
    const onChoose = vi.fn();
    renderBlock('buttons', onChoose, true);
    expect(screen.getByRole('button', { name: 'Yoga' })).toBeDisabled();
  });
});
