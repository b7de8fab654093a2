import {
  Button,
  Card,
  Group,
  MultiSelect,
  NumberInput,
  Select,
  Slider,
  Stack,
  Switch,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useCan } from '../../app/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorAlert, Loading } from '../../components/states';
import { useBotId } from './BotPage';
import { placeFieldError } from '../../api/field-errors';
import { notify } from '../../components/notify';
import { useFormUnsavedChanges } from '../../components/unsaved-changes';
import { GoLiveChecklist } from './GoLiveChecklist';
import { useBot, useDeleteBot, usePatchBot } from './queries';
import { Activation } from './ActivationCard';
import { ModelField } from './ModelField';
import { formValues, type Values, toPatch } from './settings-form';

const CHANNELS = ['whatsapp', 'email', 'voice', 'api', 'webhook'] as const;

export function SettingsTab() {
  const { t } = useTranslation();
  const botId = useBotId();
  const bot = useBot(botId);
  const canEdit = useCan('bot:edit');
  const navigate = useNavigate();
  const form = useForm<Values>({
    initialValues: bot.data ? formValues(bot.data) : undefined,
    validate: { name: (v) => (v.trim() ? null : t('bots.nameRequired')) },
  });
  useEffect(() => {
    if (bot.data && !form.initialized) form.initialize(formValues(bot.data));
  }, [bot.data, form]);
  const save = usePatchBot(botId, {
    onSaved: (updated) => {
      form.resetDirty(formValues(updated));
      notify(t('common.saved'));
    },
    // Validation errors name the field: show them there too.
    onError: (error) => placeFieldError(error, Object.keys(formValues(bot.data!)), form.setFieldError),
  });
  const remove = useDeleteBot(botId, () => void navigate('/bots'));
  useFormUnsavedChanges(form, (values) => save.mutateAsync(toPatch(values)), canEdit && form.initialized);
  if (!bot.data || !form.initialized) return <Loading />;

  return (
    <Stack>
      <GoLiveChecklist botId={botId} />
      <Activation bot={bot.data} />
      <Card withBorder>
        <form onSubmit={form.onSubmit((values) => save.mutate(toPatch(values)))} noValidate>
          <fieldset disabled={!canEdit} style={{ border: 0, padding: 0, margin: 0 }}>
            <Stack>
              <Title order={2} size="h4">
                {t('bot.settings')}
              </Title>
              {save.error && <ErrorAlert error={save.error} />}
              <TextInput
                label={t('bots.name')}
                description={t('bot.help.name')}
                required
                {...form.getInputProps('name')}
              />
              <Textarea
                label={t('bots.description')}
                description={t('bot.help.description')}
                autosize
                minRows={2}
                {...form.getInputProps('description')}
              />
              <Select
                label={t('bot.kind')}
                description={t('bot.help.kind')}
                data={['standard', 'smart', 'specialized'].map((k) => ({
                  value: k,
                  label: t(`bot.kinds.${k}`),
                }))}
                allowDeselect={false}
                {...form.getInputProps('kind')}
              />
              <div>
                <Text size="sm" fw={500} id="strictness-label">
                  {t('bot.strictness')}
                </Text>
                <Text size="xs" c="dimmed" mb={4}>
                  {t('bot.help.strictness')}
                </Text>
                <Slider
                  min={1}
                  max={5}
                  step={1}
                  marks={[1, 2, 3, 4, 5].map((v) => ({ value: v, label: String(v) }))}
                  aria-labelledby="strictness-label"
                  thumbLabel={t('bot.strictness')}
                  mb="md"
                  {...form.getInputProps('knowledge_strictness')}
                />
              </div>
              <NumberInput
                label={t('bot.minScore')}
                description={t('bot.help.minScore')}
                min={0}
                max={1}
                step={0.05}
                decimalScale={2}
                {...form.getInputProps('knowledge_min_score')}
              />
              <NumberInput
                label={t('bot.emoji')}
                description={t('bot.help.emoji')}
                min={0}
                max={10}
                {...form.getInputProps('emoji_usage')}
              />
              <Switch
                label={t('bot.formal')}
                description={t('bot.help.formal')}
                {...form.getInputProps('formal_address', { type: 'checkbox' })}
              />
              <TextInput
                label={t('bot.industry')}
                description={t('bot.help.industry')}
                {...form.getInputProps('industry_code')}
              />
              <ModelField form={form} />
              <MultiSelect
                label={t('bot.channels')}
                description={t('bot.help.channels')}
                data={CHANNELS.map((c) => ({ value: c, label: t(`channels.${c}`) }))}
                {...form.getInputProps('channels')}
              />
              {canEdit && (
                <Group justify="space-between">
                  <Button type="submit" loading={save.isPending} disabled={!form.isDirty()}>
                    {t('common.save')}
                  </Button>
                  <ConfirmButton
                    size="sm"
                    title={t('bot.delete')}
                    text={t('bot.deleteConfirm', { name: bot.data.name })}
                    confirm={t('common.delete')}
                    onConfirm={() => remove.mutate()}
                  >
                    {t('bot.delete')}
                  </ConfirmButton>
                </Group>
              )}
            </Stack>
          </fieldset>
        </form>
      </Card>
    </Stack>
  );
}
