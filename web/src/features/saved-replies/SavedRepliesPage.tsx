import { Button, Stack, Table, Text, TextInput, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCan } from '../../app/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { DataTable } from '../../components/DataTable';
import { FormActions } from '../../components/FormActions';
import { Section } from '../../components/Section';
import { notify } from '../../components/notify';
import { EmptyState, ErrorAlert } from '../../components/states';
import { useFormUnsavedChanges } from '../../components/unsaved-changes';
import {
  useCreateSavedReply,
  useDeleteSavedReply,
  useSavedReplies,
  useUpdateSavedReply,
  type SavedReply,
} from './queries';

const NAME = /^[a-z0-9][a-z0-9_-]*$/;

/**
 * Settings → Saved replies: the team's text snippets, typed as /name in the inbox's reply box.
 * Everyone who answers in the inbox reads them; editors and admins keep them.
 */
export function SavedRepliesPage() {
  const { t } = useTranslation();
  const canRead = useCan('inbox:work');
  const canManage = useCan('saved_reply:manage');
  const replies = useSavedReplies(canRead);
  const [editing, setEditing] = useState<SavedReply | null>(null);
  const form = useForm({
    initialValues: { name: '', content: '' },
    validate: {
      name: (v) =>
        !v.trim()
          ? t('savedReplies.nameRequired')
          : v.trim().length > 40 || !NAME.test(v.trim())
            ? t('savedReplies.nameInvalid')
            : null,
      content: (v) =>
        !v.trim()
          ? t('savedReplies.contentRequired')
          : v.length > 5000
            ? t('savedReplies.contentTooLong')
            : null,
    },
  });
  const create = useCreateSavedReply();
  const update = useUpdateSavedReply();
  const remove = useDeleteSavedReply();
  const done = () => {
    setEditing(null);
    form.setInitialValues({ name: '', content: '' });
    form.reset();
  };
  const save = async (values: typeof form.values) => {
    const body = { name: values.name.trim(), content: values.content.trim() };
    if (editing) await update.mutateAsync({ id: editing.id, ...body });
    else await create.mutateAsync(body);
    notify(t(editing ? 'savedReplies.updated' : 'savedReplies.created', { name: body.name }));
    done();
  };
  useFormUnsavedChanges(form, save);
  const startEdit = (reply: SavedReply) => {
    setEditing(reply);
    form.setInitialValues({ name: reply.name, content: reply.content });
    form.setValues({ name: reply.name, content: reply.content });
    form.resetDirty({ name: reply.name, content: reply.content });
  };
  if (!canRead)
    return <EmptyState title={t('settings.tabs.saved-replies')} text={t('errors.noPermission')} />;
  const error = create.error ?? update.error;
  return (
    <Stack>
      {canManage && (
        <Section
          title={editing ? t('savedReplies.edit', { name: editing.name }) : t('savedReplies.add')}
          intro={t('savedReplies.intro')}
        >
          <form onSubmit={form.onSubmit((values) => void save(values).catch(() => undefined))} noValidate>
            <Stack maw={640}>
              {error && <ErrorAlert error={error} />}
              <TextInput
                label={t('savedReplies.name')}
                description={t('savedReplies.nameHelp')}
                leftSection="/"
                required
                maxLength={40}
                autoCapitalize="none"
                spellCheck={false}
                {...form.getInputProps('name')}
              />
              <Textarea
                label={t('savedReplies.content')}
                required
                autosize
                minRows={3}
                maxRows={12}
                {...form.getInputProps('content')}
              />
              <FormActions
                start
                pending={create.isPending || update.isPending}
                submit={editing ? t('common.save') : t('savedReplies.addSubmit')}
                {...(editing ? { onCancel: done } : {})}
              />
            </Stack>
          </form>
        </Section>
      )}
      <Section title={t('savedReplies.list')} intro={canManage ? undefined : t('savedReplies.intro')}>
        {remove.error && <ErrorAlert error={remove.error} />}
        <DataTable
          columns={[
            t('savedReplies.name'),
            t('savedReplies.content'),
            ...(canManage ? [t('common.actions')] : []),
          ]}
          query={replies}
          isEmpty={replies.data?.data.length === 0}
          empty={<Text c="dimmed">{t('savedReplies.none')}</Text>}
        >
          {replies.data?.data.map((reply) => (
            <Table.Tr key={reply.id}>
              <Table.Td>
                <Text ff="monospace" size="sm">
                  /{reply.name}
                </Text>
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                <Text size="sm" lineClamp={3}>
                  {reply.content}
                </Text>
              </Table.Td>
              {canManage && (
                <Table.Td>
                  <Stack gap={4} align="flex-start">
                    <Button
                      size="compact-xs"
                      variant="default"
                      aria-label={t('savedReplies.editOne', { name: reply.name })}
                      onClick={() => startEdit(reply)}
                    >
                      {t('common.edit')}
                    </Button>
                    <ConfirmButton
                      aria-label={t('savedReplies.deleteOne', { name: reply.name })}
                      title={t('savedReplies.delete')}
                      text={t('savedReplies.deleteConfirm', { name: reply.name })}
                      onConfirm={() =>
                        remove.mutate(reply.id, {
                          onSuccess: () => {
                            if (editing?.id === reply.id) done();
                          },
                        })
                      }
                    />
                  </Stack>
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </DataTable>
      </Section>
    </Stack>
  );
}
