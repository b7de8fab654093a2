import { Paper, Text, VisuallyHidden } from '@mantine/core';
import { useRef, useState, type DragEvent, type KeyboardEvent } from 'react';

/**
 * A drop area for files that is also a button: click, Enter or Space opens the file chooser,
 * files dragged onto it are taken as well. `accept` as for `<input type="file">`.
 */
export function FileDrop({
  label,
  onFiles,
  accept,
  multiple = true,
  size = 'md',
}: {
  label: string;
  onFiles: (files: File[]) => void;
  accept?: string[];
  multiple?: boolean;
  size?: 'sm' | 'md';
}) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const open = () => input.current?.click();
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    const files = [...event.dataTransfer.files];
    if (files.length > 0) onFiles(multiple ? files : files.slice(0, 1));
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      open();
    }
  };
  return (
    <>
      <Paper
        withBorder
        role="button"
        tabIndex={0}
        aria-label={label}
        onClick={open}
        onKeyDown={onKeyDown}
        onDragOver={(event) => {
          event.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
        style={{
          borderStyle: 'dashed',
          cursor: 'pointer',
          background: over ? 'var(--mantine-color-blue-light)' : undefined,
        }}
      >
        <Text ta="center" size={size} py="md">
          {label}
        </Text>
      </Paper>
      {/* Beside the button, not inside it: a control must not hold another one. */}
      <VisuallyHidden>
        <input
          ref={input}
          type="file"
          tabIndex={-1}
          aria-hidden
          multiple={multiple}
          accept={accept?.join(',')}
          onChange={(event) => {
            const files = [...(event.currentTarget.files ?? [])];
            event.currentTarget.value = '';
            if (files.length > 0) onFiles(files);
          }}
        />
      </VisuallyHidden>
    </>
  );
}
