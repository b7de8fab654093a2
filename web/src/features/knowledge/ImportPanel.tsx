import { Button, Group, SegmentedControl, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FileDrop } from '../../components/FileDrop';
import { ErrorAlert, Loading } from '../../components/states';
import { isImportUrl, selectFiles } from './import-progress';
import { fieldErrorOf } from '../../api/field-errors';
import { useImportJobs, useStartImport } from './queries';
import { Section } from '../../components/Section';
import { ImportJob } from './ImportJob';

/** Import of documents into a bot's knowledge: files (several at once), a web page or a sitemap. */
export function ImportPanel({ botId, onDone }: { botId: string; onDone: () => void }) {
  const { t } = useTranslation();
  const [files, setFiles] = useState<File[]>([]);
  const [dropped, setDropped] = useState(0);
  const [url, setUrl] = useState('');
  const [urlKind, setUrlKind] = useState<'url' | 'sitemap_url'>('url');
  const jobs = useImportJobs(botId);
  const upload = useStartImport(botId, () => {
    setFiles([]);
    setDropped(0);
  });
  const fetchUrl = useStartImport(botId, () => setUrl(''));
  const urlValid = isImportUrl(url);
  // A refused address (internal network, unknown host, …) is said at the address field.
  const urlRefused = fieldErrorOf(fetchUrl.error, ['url', 'sitemap_url']);

  return (
    <Section title={t('knowledgeImport.title')}>
      <Stack>
        <Text size="sm" c="dimmed">
          {t('knowledgeImport.intro')}
        </Text>
        <FileDrop
          label={t('knowledgeImport.dropzone')}
          onFiles={(chosen) => {
            const selection = selectFiles(chosen);
            setFiles(selection.accepted);
            setDropped(selection.dropped);
          }}
        />
        {files.length > 0 && (
          <Group justify="space-between">
            <Text size="sm">{files.map((f) => f.name).join(', ')}</Text>
            <Button onClick={() => upload.mutate(files)} loading={upload.isPending}>
              {t('knowledgeImport.upload', { count: files.length })}
            </Button>
          </Group>
        )}
        {dropped > 0 && (
          <Text size="sm" c="orange">
            {t('knowledgeImport.dropped', { count: dropped })}
          </Text>
        )}
        {upload.error && <ErrorAlert error={upload.error} />}
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (!urlValid) return;
            fetchUrl.mutate(urlKind === 'url' ? { url: url.trim() } : { sitemap_url: url.trim() });
          }}
        >
          <Group align="flex-end">
            <SegmentedControl
              value={urlKind}
              onChange={(value) => setUrlKind(value as 'url' | 'sitemap_url')}
              data={[
                { value: 'url', label: t('knowledgeImport.page') },
                { value: 'sitemap_url', label: t('knowledgeImport.sitemap') },
              ]}
            />
            <TextInput
              label={t('knowledgeImport.url')}
              placeholder="https://"
              value={url}
              onChange={(e) => {
                setUrl(e.currentTarget.value);
                if (fetchUrl.error) fetchUrl.reset();
              }}
              error={url && !urlValid ? t('knowledgeImport.urlInvalid') : urlRefused}
              style={{ flex: 1 }}
            />
            <Button type="submit" disabled={!urlValid} loading={fetchUrl.isPending}>
              {t('knowledgeImport.fetch')}
            </Button>
          </Group>
        </form>
        {fetchUrl.error && !urlRefused && <ErrorAlert error={fetchUrl.error} />}
        {jobs.isPending ? (
          <Loading />
        ) : jobs.error ? (
          <ErrorAlert error={jobs.error} />
        ) : (
          jobs.data.data.length > 0 && (
            <Stack gap="sm" aria-live="polite">
              <Title order={3} size="h5">
                {t('knowledgeImport.recent')}
              </Title>
              {jobs.data.data.map((job) => (
                <ImportJob key={job.id} botId={botId} job={job} onFinished={onDone} />
              ))}
            </Stack>
          )
        )}
      </Stack>
    </Section>
  );
}
