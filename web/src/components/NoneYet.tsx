import { Text } from '@mantine/core';

/** A section of a page with nothing in it yet, in a word. */
export function NoneYet({ text }: { text: string }) {
  return (
    <Text c="dimmed" size="sm">
      {text}
    </Text>
  );
}
