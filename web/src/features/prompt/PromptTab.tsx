import {
  Alert,
  Badge,
  Box,
  Button,
  Card,
  Checkbox,
  Group,
  Stack,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCan } from '../../app/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { DataTable } from '../../components/DataTable';
import { EmptyState, ErrorAlert, Loading } from '../../components/states';
import { formatDateTime } from '../../format';
import { useBotId } from '../bots/BotPage';
import { useDeletePromptVersion, usePromptVersions, useRestorePrompt, useSavePrompt } from './queries';
import { notify } from '../../components/notify';
import { useUnsavedChanges } from '../../components/unsaved-changes';
import { Section } from '../../components/Section';
import { DiffView } from './DiffView';

export function PromptTab() {
  const { t, i18n } = useTranslation();
  const botId = useBotId();
  const canEdit = useCan('bot:edit');
  const [text, setText] = useState<string | null>(null);
  const [label, setLabel] = useState('');
  const [selected, setSelected] = useState<string[]>([]);
  const versions = usePromptVersions(botId);
  useEffect(() => {
    if (versions.data && text === null) setText(versions.data.current_prompt);
  }, [versions.data, text]);
  const save = useSavePrompt(botId);
  const saveText = () =>
    save.mutateAsync(
      { prompt_text: text ?? '', version_name: label.trim() || null },
      {
        onSuccess: (result) => {
          setLabel('');
          notify(t('prompt.saved', { number: result.version.version_number }));
        },
      },
    );
  const restore = useRestorePrompt(botId);
  const restoreVersion = (versionId: string) =>
    restore.mutate(versionId, {
      onSuccess: () => {
        // The editor shows the restored text (taken from the refreshed list).
        setText(null);
        notify(t('prompt.restored'));
      },
    });
  const remove = useDeletePromptVersion(botId);
  const removeVersion = (versionId: string) =>
    remove.mutate(versionId, {
      onSuccess: () => setSelected((list) => list.filter((id) => id !== versionId)),
    });

  const changed = text !== null && versions.data !== undefined && text !== versions.data.current_prompt;
  useUnsavedChanges({
    dirty: changed,
    save: text?.trim() ? async () => (await saveText(), true) : undefined,
    discard: () => setText(null),
  });

  if (versions.isPending) return <Loading />;
  if (versions.error) return <ErrorAlert error={versions.error} />;
  const list = versions.data.versions;
  const toggle = (id: string) =>
    setSelected((current) =>
      current.includes(id) ? current.filter((x) => x !== id) : [...current.slice(-1), id],
    );
  const [a, b] = selected;
  const ordered = a && b ? [a, b].sort((x, y) => num(x) - num(y)) : [];
  function num(id: string) {
    return list.find((v) => v.id === id)?.version_number ?? 0;
  }

  return (
    <Stack>
      <Card withBorder>
        <Stack>
          <Title order={2} size="h4">
            {t('prompt.editor')}
          </Title>
          <Textarea
            label={t('prompt.systemPrompt')}
            autosize
            minRows={6}
            maxRows={20}
            value={text ?? ''}
            onChange={(e) => setText(e.currentTarget.value)}
            readOnly={!canEdit}
          />
          <Alert color="gray" title={t('prompt.rulesTitle')}>
            {t('prompt.rulesText')}
          </Alert>
          {save.error && <ErrorAlert error={save.error} />}
          {canEdit && (
            <Group align="flex-end">
              <TextInput
                label={t('prompt.versionName')}
                value={label}
                onChange={(e) => setLabel(e.currentTarget.value)}
                maxLength={100}
              />
              <Button
                onClick={() => void saveText().catch(() => undefined)}
                loading={save.isPending}
                disabled={!text?.trim() || !changed}
              >
                {t('prompt.saveVersion')}
              </Button>
            </Group>
          )}
        </Stack>
      </Card>
      <Section title={t('prompt.history')}>
        {(restore.error || remove.error) && <ErrorAlert error={restore.error ?? remove.error} />}
        {list.length === 0 ? (
          <EmptyState title={t('prompt.noVersionsTitle')} text={t('prompt.noVersionsText')} />
        ) : (
          <>
            <Text size="sm" c="dimmed" mb="xs">
              {t('prompt.pickTwo')}
            </Text>
            <DataTable
              columns={[
                t('prompt.compare'),
                t('prompt.number'),
                t('prompt.label'),
                t('common.created'),
                t('common.actions'),
              ]}
            >
              {list.map((version) => (
                <Table.Tr key={version.id} data-testid={`version-${version.version_number}`}>
                  <Table.Td>
                    <Checkbox
                      aria-label={t('prompt.compareVersion', { number: version.version_number })}
                      checked={selected.includes(version.id)}
                      onChange={() => toggle(version.id)}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Group gap={6}>
                      {version.version_number}
                      {version.is_current && (
                        <Badge size="sm" color="green">
                          {t('prompt.current')}
                        </Badge>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td>{version.version_name ?? '—'}</Table.Td>
                  <Table.Td>{formatDateTime(version.created_at, i18n.language)}</Table.Td>
                  <Table.Td>
                    {canEdit && !version.is_current && (
                      <Group gap={4} wrap="nowrap">
                        <Button
                          size="compact-xs"
                          variant="light"
                          onClick={() => restoreVersion(version.id)}
                          aria-label={t('prompt.restoreVersion', { number: version.version_number })}
                        >
                          {t('prompt.restore')}
                        </Button>
                        <ConfirmButton
                          aria-label={t('prompt.deleteVersion', { number: version.version_number })}
                          title={t('prompt.deleteVersion', { number: version.version_number })}
                          text={t('prompt.deleteConfirm')}
                          onConfirm={() => removeVersion(version.id)}
                        />
                      </Group>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
          </>
        )}
      </Section>
      {ordered.length === 2 && (
        <Box>
          <DiffView botId={botId} from={ordered[0]!} to={ordered[1]!} />
        </Box>
      )}
    </Stack>
  );
}
