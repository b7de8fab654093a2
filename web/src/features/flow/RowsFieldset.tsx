import { ActionIcon, Button, Fieldset, Group, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A list of rows in the block editor (options, conditions, exits): a help text, each row's
 * fields with a remove button, and a button that adds a row.
 */
export function RowsFieldset<T>({
  legend,
  help,
  rows,
  rowKey,
  rowTestId,
  children,
  after,
  removeLabel,
  onRemove,
  addLabel,
  onAdd,
}: {
  legend: string;
  help: string;
  rows: readonly T[];
  rowKey: (row: T, index: number) => string | number;
  rowTestId: (row: T) => string;
  /** The row's fields. */
  children: (row: T, index: number) => ReactNode;
  /** Shown after the remove button, e.g. a warning on its own line. */
  after?: (row: T) => ReactNode;
  removeLabel: (index: number) => string;
  onRemove: (index: number) => void;
  addLabel: string;
  onAdd: () => void;
}) {
  return (
    <Fieldset legend={legend}>
      <Text size="xs" c="dimmed" mb="xs">
        {help}
      </Text>
      <Stack gap="sm">
        {rows.map((row, i) => (
          <Group key={rowKey(row, i)} align="flex-end" gap="xs" wrap="wrap" data-testid={rowTestId(row)}>
            {children(row, i)}
            <ActionIcon
              variant="subtle"
              color="red"
              size="lg"
              aria-label={removeLabel(i)}
              onClick={() => onRemove(i)}
            >
              ×
            </ActionIcon>
            {after?.(row)}
          </Group>
        ))}
        <Group>
          <Button size="xs" variant="default" onClick={onAdd}>
            {addLabel}
          </Button>
        </Group>
      </Stack>
    </Fieldset>
  );
}
