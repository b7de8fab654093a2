import {
  Alert,
  Button,
  Card,
  Group,
  List,
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
import { useForm, type UseFormReturnType } from '@mantine/form';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { ApiError, api, call } from '../../api/client';
import type { Bot, BotPatch, Ok } from '../../api/types';
import { useCan } from '../../app/session';
import { confirmAction } from '../../components/confirm';
import { ErrorAlert, Loading } from '../../components/states';
import { BlockReasons } from '../flow/BlockReasons';
import { refusedActivation } from './activation';
import { botQueryKey, useBot, useBotId } from './BotPage';
import { notify } from '../../components/notify';
import { useFormUnsavedChanges } from '../../components/unsaved-changes';
import { flowKeys } from '../flow/queries';
import { GoLiveChecklist, useMissingText } from './GoLiveChecklist';
import { goLiveKey } from './queries';

const CHANNELS = ['whatsapp', 'email', 'voice', 'api', 'webhook'] as const;

function formValues(bot: Bot) {
  return {
    name: bot.name,
    description: bot.description ?? '',
    kind: bot.kind,
    knowledge_strictness: bot.knowledge_strictness,
    knowledge_min_score: bot.knowledge_min_score ?? '',
    emoji_usage: bot.emoji_usage,
    formal_address: bot.formal_address,
    industry_code: bot.industry_code ?? '',
    model: bot.model ?? '',
    channels: bot.channels,
  };
}
type Values = ReturnType<typeof formValues>;

function toPatch(values: Values): BotPatch {
  return {
    name: values.name.trim(),
    description: values.description.trim() || null,
    kind: values.kind,
    knowledge_strictness: values.knowledge_strictness,
    knowledge_min_score: values.knowledge_min_score === '' ? null : Number(values.knowledge_min_score),
    emoji_usage: values.emoji_usage,
    formal_address: values.formal_address,
    industry_code: values.industry_code.trim() || null,
    model: values.model.trim() || null,
    channels: values.channels as BotPatch['channels'],
  };
}

function Activation({ bot }: { bot: Bot }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const canEdit = useCan('bot:edit');
  const on = bot.is_active && bot.status !== 'disabled';
  const toggle = useMutation({
    mutationFn: (activate: boolean) =>
      call(
        api.PATCH('/api/bots/{id}', {
          params: { path: { id: bot.id } },
          body: activate ? { is_active: true, status: 'active' } : { is_active: false, status: 'disabled' },
        }),
      ),
    onSuccess: (updated) => {
      queryClient.setQueryData(botQueryKey(bot.id), updated);
      void queryClient.invalidateQueries({ queryKey: ['bots'] });
      void queryClient.invalidateQueries({ queryKey: flowKeys.preflight(bot.id) });
      void queryClient.invalidateQueries({ queryKey: goLiveKey(bot.id) });
      notify(updated.is_active ? t('bot.activated') : t('bot.deactivated'));
    },
  });
  const refused = refusedActivation(toggle.error);
  const missing = useMissingText(bot.id);
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        {t('bot.activation')}
      </Title>
      <Text size="sm" mb="sm">
        {on ? t('bot.isOn') : t('bot.isOff')}
      </Text>
      {refused ? (
        <Alert color="red" title={t('bot.refusedTitle')} role="alert" mb="sm">
          <Text size="sm">{t('bot.refusedText', { count: refused.length })}</Text>
          <List size="sm" my="xs">
            {refused.map((block) => (
              <List.Item key={block.blockId}>
                <Text span fw={600} size="sm">
                  {block.blockName}
                </Text>
                {block.check && (
                  <Text size="sm" component="div">
                    <BlockReasons check={block.check} />
                  </Text>
                )}
              </List.Item>
            ))}
          </List>
          <Link to={`/bots/${bot.id}/flow`}>{t('bot.toFlow')}</Link>
        </Alert>
      ) : (
        toggle.error && <ErrorAlert error={toggle.error} />
      )}
      {canEdit &&
        (on ? (
          <Button
            color="red"
            variant="light"
            loading={toggle.isPending}
            onClick={() =>
              confirmAction({
                title: t('bot.deactivate'),
                text: t('bot.deactivateConfirm'),
                confirm: t('bot.deactivate'),
                onConfirm: () => toggle.mutate(false),
              })
            }
          >
            {t('bot.deactivate')}
          </Button>
        ) : (
          <Group gap="sm">
            <Button
              color="teal"
              loading={toggle.isPending}
              onClick={() => toggle.mutate(true)}
              aria-describedby={missing ? 'activation-missing' : undefined}
            >
              {t('bot.activate')}
            </Button>
            {missing && (
              <Text size="sm" c="dimmed" id="activation-missing" data-testid="activation-missing">
                {missing}
              </Text>
            )}
          </Group>
        ))}
    </Card>
  );
}

type Catalog = Ok<'/api/models', 'get'>;

/** The provider a bot's `model` value resolves to (as the server's chooseModel reads it). */
export function effectiveProvider(model: string, deployment: Catalog['deployment']): string {
  const value = model.trim();
  if (!value) return deployment.provider;
  const head = value.split(':')[0]!;
  return ['offline', 'openai', 'anthropic'].includes(head) ? head : deployment.provider;
}

/** The model options the service has configured, with the bot's own value kept if set otherwise. */
export function modelOptions(
  catalog: Catalog,
  current: string,
  t: (key: string, options?: Record<string, unknown>) => string,
) {
  const options = [
    {
      value: '',
      label: t('bot.modelDefault', {
        model:
          catalog.deployment.provider === 'offline'
            ? t('bot.modelOffline')
            : `${catalog.deployment.provider} · ${catalog.deployment.model}`,
      }),
    },
    ...catalog.providers.flatMap((p) =>
      p.models.map((model) => ({
        value: p.provider === 'offline' ? 'offline' : `${p.provider}:${model}`,
        label: p.provider === 'offline' ? t('bot.modelOffline') : `${p.provider} · ${model}`,
      })),
    ),
  ];
  if (current.trim() && !options.some((o) => o.value === current.trim())) {
    options.push({ value: current.trim(), label: t('bot.modelCurrent', { model: current.trim() }) });
  }
  return options;
}

function ModelField({ form }: { form: UseFormReturnType<Values> }) {
  const { t } = useTranslation();
  const canEdit = useCan('bot:edit');
  const catalog = useQuery({
    queryKey: ['models'],
    queryFn: () => call(api.GET('/api/models')),
    enabled: canEdit,
    staleTime: 5 * 60_000,
  });
  const value = form.values.model;
  if (!catalog.data) {
    return (
      <TextInput label={t('bot.model')} description={t('bot.help.model')} {...form.getInputProps('model')} />
    );
  }
  const offline = effectiveProvider(value, catalog.data.deployment) === 'offline';
  return (
    <Stack gap="xs">
      <Select
        label={t('bot.model')}
        description={t('bot.help.model')}
        allowDeselect={false}
        data={modelOptions(catalog.data, value, t)}
        {...form.getInputProps('model')}
      />
      {offline && (
        <Alert color="yellow" title={t('bot.modelOfflineTitle')} data-testid="offline-model-notice">
          <Text size="sm">{t('bot.modelOfflineText')}</Text>
          <Text size="sm" mt={4}>
            {t('bot.modelOfflineDocs')}
          </Text>
        </Alert>
      )}
    </Stack>
  );
}

export function SettingsTab() {
  const { t } = useTranslation();
  const botId = useBotId();
  const bot = useBot(botId);
  const canEdit = useCan('bot:edit');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const form = useForm<Values>({
    initialValues: bot.data ? formValues(bot.data) : undefined,
    validate: { name: (v) => (v.trim() ? null : t('bots.nameRequired')) },
  });
  useEffect(() => {
    if (bot.data && !form.initialized) form.initialize(formValues(bot.data));
  }, [bot.data, form]);
  const save = useMutation({
    mutationFn: (values: Values) =>
      call(api.PATCH('/api/bots/{id}', { params: { path: { id: botId } }, body: toPatch(values) })),
    onSuccess: (updated) => {
      queryClient.setQueryData(botQueryKey(botId), updated);
      void queryClient.invalidateQueries({ queryKey: ['bots'] });
      form.resetDirty(formValues(updated));
      notify(t('common.saved'));
    },
    onError: (error) => {
      // Validation errors name the field: show them there too.
      if (error instanceof ApiError && error.status === 400) {
        const field = error.field;
        if (field && field in formValues(bot.data!)) form.setFieldError(field, error.message);
      }
    },
  });
  const remove = useMutation({
    mutationFn: () => call(api.DELETE('/api/bots/{id}', { params: { path: { id: botId } } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['bots'] });
      void navigate('/bots');
    },
  });
  useFormUnsavedChanges(form, (values) => save.mutateAsync(values), canEdit && form.initialized);
  if (!bot.data || !form.initialized) return <Loading />;

  return (
    <Stack>
      <GoLiveChecklist botId={botId} />
      <Activation bot={bot.data} />
      <Card withBorder>
        <form onSubmit={form.onSubmit((values) => save.mutate(values))} noValidate>
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
                  <Button
                    color="red"
                    variant="subtle"
                    onClick={() =>
                      confirmAction({
                        title: t('bot.delete'),
                        text: t('bot.deleteConfirm', { name: bot.data.name }),
                        confirm: t('common.delete'),
                        onConfirm: () => remove.mutate(),
                      })
                    }
                  >
                    {t('bot.delete')}
                  </Button>
                </Group>
              )}
            </Stack>
          </fieldset>
        </form>
      </Card>
    </Stack>
  );
}
