import { Badge, Group, List, Progress, Stack, Text } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText, isActive, progressPercent, type KnowledgeImportSummary } from './import-progress';
import { useImportJob } from './queries';

const STATUS_COLOR = { queued: 'gray', running: 'blue', done: 'green', failed: 'red' } as const;

/** One import: progress polled from GET …/imports/{importId} while it runs, errors in words. */
export function ImportJob({
  botId,
  job,
  onFinished,
}: {
  botId: string;
  job: KnowledgeImportSummary;
  onFinished: () => void;
}) {
  const { t, i18n } = useTranslation();
  const detail = useImportJob(botId, job);
  const current = detail.data ?? job;
  const wasActive = useRef(isActive(job));
  useEffect(() => {
    if (wasActive.current && !isActive(current)) {
      wasActive.current = false;
      onFinished();
    }
  }, [current, onFinished]);
  const translate = (key: string) => (i18n.exists(key) ? t(key) : null);
  return (
    <Stack gap={4} data-testid="import-job">
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm" truncate>
          {new Date(current.created_at).toLocaleString(i18n.language)}
          {current.sitemap_url ? ` · ${current.sitemap_url}` : ''}
        </Text>
        <Badge color={STATUS_COLOR[current.status]} variant="light">
          {t(`knowledgeImport.status.${current.status}`)}
        </Badge>
      </Group>
      <Progress
        value={progressPercent(current)}
        animated={isActive(current)}
        aria-label={t('knowledgeImport.progress')}
      />
      <Text size="xs" c="dimmed">
        {t('knowledgeImport.counts', {
          done: current.documents_done,
          total: current.documents_total,
          entries: current.entries_created,
        })}
        {current.pages_total > 0 &&
          ` · ${t('knowledgeImport.pages', { done: current.pages_done, total: current.pages_total })}`}
      </Text>
      {current.errors.length > 0 && (
        <List size="xs" c="red">
          {current.errors.map((error) => (
            <List.Item key={`${error.document}-${error.code}`}>
              <Text span size="xs" fw={600}>
                {error.document}
              </Text>
              : {errorText(error, i18n.language, translate)}
            </List.Item>
          ))}
        </List>
      )}
    </Stack>
  );
}
