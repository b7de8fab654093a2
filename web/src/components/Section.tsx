import { Card, Group, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** A titled card of a page (a level-2 heading), with an action at the heading's right if any. */
export function Section({
  title,
  action,
  testId,
  children,
}: {
  title: ReactNode;
  action?: ReactNode;
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
      {children}
    </Card>
  );
}
