import { Modal, Stack, TagsInput, TextInput, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { placeFieldError } from '../../api/field-errors';
import { notify } from '../../components/notify';
import { useFormUnsavedChanges } from '../../components/unsaved-changes';
import { ErrorAlert, Loading } from '../../components/states';
import { useEntry, useSaveEntry, type EntryRef } from './queries';
import { FormActions } from '../../components/FormActions';

export type { EntryRef, EntryScope } from './queries';

interface EntryValues {
  title: string;
  content: string;
  source_url: string;
  tags: string[];
}

/** Writes an entry back; an empty source URL clears it. */
export function entryBody(values: EntryValues) {
  return {
    title: values.title.trim(),
    content: values.content,
    source_url: values.source_url.trim() || null,
    tags: values.tags.map((tag) => tag.trim()).filter(Boolean),
  };
}

const FIELDS = ['title', 'content', 'source_url', 'tags'] as const;

/** A modal to edit an entry's title, text, source and tags; the search index follows the change. */
export function EntryEditor({
  botId,
  entry,
  onClose,
  onSaved,
}: {
  botId: string;
  entry: EntryRef;
  onClose: () => void;
  onSaved: () => void;
}) {
  const { t } = useTranslation();
  const loaded = useEntry(botId, entry);
  const form = useForm<EntryValues>({
    initialValues: { title: '', content: '', source_url: '', tags: [] },
    validate: {
      title: (v) => (v.trim() ? null : t('knowledge.titleRequired')),
      content: (v) => (v.trim() ? null : t('knowledge.contentRequired')),
      source_url: (v) => (!v.trim() || /^https?:\/\/\S+$/.test(v.trim()) ? null : t('knowledge.urlInvalid')),
    },
  });
  const { setValues, resetDirty } = form;
  useEffect(() => {
    if (!loaded.data) return;
    const values = {
      title: loaded.data.title,
      content: loaded.data.content,
      source_url: loaded.data.source_url ?? '',
      tags: loaded.data.tags,
    };
    setValues(values);
    resetDirty(values);
    // Only when the entry arrives; later edits stay the user's.
  }, [loaded.data, setValues, resetDirty]);
  const save = useSaveEntry(botId, entry, {
    onSuccess: () => {
      notify(t('knowledge.saved'));
      onSaved();
      onClose();
    },
    onError: (error) => placeFieldError(error, FIELDS, form.setFieldError),
  });
  useFormUnsavedChanges(form, (values) => save.mutateAsync(entryBody(values)), loaded.isSuccess);
  const placed = save.error !== null && Object.keys(form.errors).length > 0;
  return (
    <Modal opened onClose={onClose} title={t('knowledge.editTitle', { title: entry.title })} size="lg">
      {loaded.isPending ? (
        <Loading />
      ) : loaded.error ? (
        <ErrorAlert error={loaded.error} />
      ) : (
        <form onSubmit={form.onSubmit((values) => save.mutate(entryBody(values)))} noValidate>
          <Stack>
            {save.error && !placed && <ErrorAlert error={save.error} />}
            <TextInput
              label={t('knowledge.title')}
              required
              data-autofocus
              {...form.getInputProps('title')}
            />
            <Textarea
              label={t('knowledge.content')}
              required
              autosize
              minRows={5}
              maxRows={16}
              {...form.getInputProps('content')}
            />
            <TextInput
              label={t('knowledge.sourceUrl')}
              placeholder="https://"
              {...form.getInputProps('source_url')}
            />
            <TagsInput
              label={t('knowledge.tags')}
              description={t('knowledge.tagsHelp')}
              {...form.getInputProps('tags')}
            />
            <FormActions onCancel={onClose} pending={save.isPending} disabled={!form.isDirty()} />
          </Stack>
        </form>
      )}
    </Modal>
  );
}
