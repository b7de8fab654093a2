import { Code, Group, Stack, Text } from '@mantine/core';
import { CopyTextButton } from '../../components/CopyTextButton';

/** A text to copy: shown as code with a copy button. */
export function CopyBlock({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Stack gap={4}>
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm" fw={500}>
          {label}
        </Text>
        <CopyTextButton value={value} />
      </Group>
      <Code block data-testid={testId} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
        {value}
      </Code>
    </Stack>
  );
}
