import { Progress, Stack } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/states';
import { notify } from '../../components/notify';
import { FileDrop } from '../../components/FileDrop';
import { importTextFile } from './queries';

export function Import({ botId, onDone }: { botId: string; onDone: () => void }) {
  const { t } = useTranslation();
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const importFiles = async (files: File[]) => {
    setError(null);
    setProgress({ done: 0, total: files.length });
    try {
      // One request per file, so progress is real and one bad file does not stop the others.
      for (const [index, file] of files.entries()) {
        const content = await file.text();
        await importTextFile(botId, file.name, content);
        setProgress({ done: index + 1, total: files.length });
      }
      notify(t('knowledge.imported', { count: files.length }));
    } catch (e) {
      setError(e);
    } finally {
      onDone();
    }
  };
  return (
    <Stack gap="xs">
      <FileDrop
        label={t('knowledge.dropzone')}
        onFiles={(files) => void importFiles(files)}
        accept={['text/plain', 'text/markdown', '.md', '.txt']}
        size="sm"
      />
      {progress && (
        <Progress
          value={(progress.done / progress.total) * 100}
          aria-label={t('knowledge.importProgress', { done: progress.done, total: progress.total })}
        />
      )}
      {error !== null && <ErrorAlert error={error} />}
    </Stack>
  );
}
