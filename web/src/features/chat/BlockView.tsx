import { Button, Group, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ChatBlock } from '../../api/types';

/** The answer to a block: the chosen item of a block of the reply. */
export interface Choice {
  block_id: string;
  item_id: string;
}

/** A block of the reply: buttons in a row, or a list with descriptions; choosing sends the option. */
export function BlockView({
  block,
  disabled,
  onChoose,
}: {
  block: ChatBlock;
  disabled: boolean;
  onChoose: (title: string, choice: Choice) => void;
}) {
  const { t } = useTranslation();
  const choose = (item: ChatBlock['items'][number]) =>
    onChoose(item.title, { block_id: block.id, item_id: item.id });
  return (
    <div role="group" aria-label={`${t('chat.choose')}: ${block.name}`} data-testid={`block-${block.type}`}>
      {block.type === 'list' ? (
        <Stack gap={4} mt="xs">
          {block.items.map((item) => (
            <Button
              key={item.id}
              variant="light"
              justify="flex-start"
              disabled={disabled}
              onClick={() => choose(item)}
              styles={{ root: { height: 'auto', minHeight: 36 }, label: { whiteSpace: 'normal' } }}
            >
              <Stack gap={0} align="flex-start" py={4}>
                <Text size="sm" fw={600}>
                  {item.title}
                </Text>
                {item.description && (
                  <Text size="xs" c="dimmed">
                    {item.description}
                  </Text>
                )}
              </Stack>
            </Button>
          ))}
        </Stack>
      ) : (
        <Group gap="xs" mt="xs">
          {block.items.map((item) => (
            <Button
              key={item.id}
              size="xs"
              variant="light"
              disabled={disabled}
              title={item.description ?? undefined}
              onClick={() => choose(item)}
            >
              {item.title}
            </Button>
          ))}
        </Group>
      )}
    </div>
  );
}
