import { Text } from '@mantine/core';

/** A section of the contact page with nothing in it yet. */
export function NoneYet({ text }: { text: string }) {
  return (
    <Text c="dimmed" size="sm">
      {text}
    </Text>
  );
}
