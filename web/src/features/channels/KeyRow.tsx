import { Group, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** A key or secret: its name, a line of help, its value when it may be shown, and its action. */
export function KeyRow({
  label,
  help,
  value,
  children,
}: {
  label: string;
  help: string;
  value?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Group justify="space-between" align="flex-end">
      <div>
        <Text size="sm" fw={500}>
          {label}
        </Text>
        <Text size="xs" c="dimmed">
          {help}
        </Text>
        {value}
      </div>
      {children}
    </Group>
  );
}
