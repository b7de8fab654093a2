import { Center, Group, Paper, Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { LanguageSwitch } from './LanguageSwitch';

/** A page for who is not signed in (sign-in, accepting an invitation): a card with its title and language. */
export function PublicFrame({
  title,
  width,
  children,
}: {
  title: string;
  width: number;
  children: ReactNode;
}) {
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={width}>
        <Stack>
          <Group justify="space-between">
            <Title order={1} size="h2">
              {title}
            </Title>
            <LanguageSwitch />
          </Group>
          {children}
        </Stack>
      </Paper>
    </Center>
  );
}
