import { Button } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** "More" under a paged list: shown while the list has a next page, busy while it loads. */
export function LoadMore({
  list,
  testId,
}: {
  list: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown };
  testId?: string;
}) {
  const { t } = useTranslation();
  if (!list.hasNextPage) return null;
  return (
    <Button
      variant="default"
      mt="sm"
      onClick={() => void list.fetchNextPage()}
      loading={list.isFetchingNextPage}
      data-testid={testId}
    >
      {t('common.more')}
    </Button>
  );
}
