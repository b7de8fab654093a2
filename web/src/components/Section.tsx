import { Card, Group, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A titled card of a page (a level-2 heading), with an action at the heading's right if any and
 * a short introduction under it.
 */
export function Section({
  title,
  action,
  intro,
  testId,
  children,
}: {
  title: ReactNode;
  action?: ReactNode;
  intro?: ReactNode;
  testId?: string;
  children?: ReactNode;
}) {
  return (
    <Card withBorder data-testid={testId}>
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4">
          {title}
        </Title>
        {action}
      </Group>
      {intro && (
        <Text size="sm" mb="sm">
          {intro}
        </Text>
      )}
      {children}
    </Card>
  );
}
