import { MantineProvider } from '@mantine/core';
import { fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { FileDrop } from './FileDrop';

const renderDrop = (onFiles: (files: File[]) => void, multiple = true) =>
  render(
    <MantineProvider>
      <FileDrop
        label="Dateien hierher ziehen"
        onFiles={onFiles}
        multiple={multiple}
        accept={['.md', '.txt']}
      />
    </MantineProvider>,
  );

describe('FileDrop', () => {
  const a = new File(['a'], 'a.md', { type: 'text/markdown' });
  const b = new File(['b'], 'b.txt', { type: 'text/plain' });

  it('takes files dropped on it, only the first when not multiple', () => {
    const onFiles = vi.fn();
    renderDrop(onFiles);
    fireEvent.drop(screen.getByRole('button', { name: 'Dateien hierher ziehen' }), {
      dataTransfer: { files: [a, b] },
    });
    expect(onFiles).toHaveBeenCalledWith([a, b]);

    const single = vi.fn();
    renderDrop(single, false);
    fireEvent.drop(screen.getAllByRole('button', { name: 'Dateien hierher ziehen' })[1]!, {
      dataTransfer: { files: [a, b] },
    });
    expect(single).toHaveBeenCalledWith([a]);
  });

  it('is a button: the keyboard opens the chooser, and chosen files are passed on', async () => {
    const onFiles = vi.fn();
    const { container } = renderDrop(onFiles);
    const input = container.querySelector('input[type="file"]') as HTMLInputElement;
    expect(input.accept).toBe('.md,.txt');
    const click = vi.spyOn(input, 'click');
    screen.getByRole('button', { name: 'Dateien hierher ziehen' }).focus();
    await userEvent.keyboard('{Enter}');
    expect(click).toHaveBeenCalled();
    await userEvent.upload(input, [a, b]);
    expect(onFiles).toHaveBeenCalledWith([a, b]);
  });
});
