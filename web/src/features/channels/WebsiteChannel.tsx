import {
  Alert,
  Anchor,
  Button,
  Card,
  ColorInput,
  Group,
  NumberInput,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  TagsInput,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { CopyTextButton } from '../../components/CopyTextButton';
import { useCan } from '../../app/session';
import { notify } from '../../components/notify';
import { ErrorAlert, Loading } from '../../components/states';
import { useFormUnsavedChanges } from '../../components/unsaved-changes';
import { useBot } from '../bots/queries';
import { canonicalOrigin, cspLinesOf, snippetOf } from './origins';
import { useUpdateWidget, useWidgetSettings } from './queries';
import { CopyBlock } from './CopyBlock';
import { Preview } from './Preview';
import { HEX, formValues, toBody, type Values } from './widget-form';
import { Keys } from './Keys';
import { BusinessHoursCard, dayProblem } from './BusinessHoursCard';

/** Bots → Channels → Website: the widget's switch, origins, appearance with preview, snippet and keys. */
export function WebsiteChannel({ botId }: { botId: string }) {
  const { t } = useTranslation();
  const canEdit = useCan('bot:edit');
  const bot = useBot(botId);
  const settings = useWidgetSettings(botId);
  const update = useUpdateWidget(botId);
  const toggle = useUpdateWidget(botId);
  const form = useForm<Values>({
    validate: {
      allowed_origins: (origins) => {
        const wrong = origins.find((o) => canonicalOrigin(o) === null);
        return wrong ? t('channels.website.originInvalid', { value: wrong }) : null;
      },
      primary_color: (v) => (HEX.test(v) ? null : t('channels.website.colorInvalid')),
      background_color: (v) => (HEX.test(v) ? null : t('channels.website.colorInvalid')),
      text_color: (v) => (HEX.test(v) ? null : t('channels.website.colorInvalid')),
      avatar_url: (v) =>
        !v.trim() || /^https:\/\/\S+$/.test(v.trim()) ? null : t('channels.website.avatarInvalid'),
      greeting: (v) => (v.length <= 500 ? null : t('channels.website.greetingTooLong')),
      days: (days, values) =>
        values.hours_on && days.some((d) => dayProblem(d, t) !== null)
          ? t('channels.website.hoursFormat')
          : null,
    },
  });
  useEffect(() => {
    if (settings.data && !form.initialized) form.initialize(formValues(settings.data));
  }, [settings.data, form]);
  const save = (values: Values) =>
    update.mutateAsync(toBody(values)).then((updated) => {
      form.resetDirty(formValues(updated));
      form.setValues(formValues(updated));
      notify(t('common.saved'));
    });
  useFormUnsavedChanges(form, save, canEdit && form.initialized);

  if (settings.isPending || bot.isPending) return <Loading />;
  if (settings.error) return <ErrorAlert error={settings.error} />;
  if (bot.error) return <ErrorAlert error={bot.error} />;
  if (!form.initialized) return <Loading />;
  const data = settings.data;
  const origin = window.location.origin;
  const shareUrl = `${origin}/c/${botId}`;

  return (
    <Stack>
      <Card withBorder>
        <Stack>
          {toggle.error && <ErrorAlert error={toggle.error} />}
          <Switch
            label={t('channels.website.enabled')}
            description={t('channels.website.enabledHelp')}
            checked={data.enabled}
            disabled={!canEdit || toggle.isPending}
            onChange={(e) => toggle.mutate({ enabled: e.currentTarget.checked })}
          />
          {data.enabled && data.allowed_origins.length === 0 && (
            <Alert color="yellow" role="status">
              {t('channels.website.noOrigins')}
            </Alert>
          )}
          <Switch
            label={t('channels.website.shareLink')}
            description={t('channels.website.shareLinkHelp')}
            checked={data.share_link_enabled}
            disabled={!canEdit || toggle.isPending}
            onChange={(e) => toggle.mutate({ share_link_enabled: e.currentTarget.checked })}
          />
          {data.share_link_enabled && (
            <Group gap="xs">
              <Anchor href={shareUrl} target="_blank" rel="noopener" data-testid="share-link">
                {shareUrl}
              </Anchor>
              <CopyTextButton value={shareUrl} />
            </Group>
          )}
        </Stack>
      </Card>

      <form onSubmit={form.onSubmit((values) => void save(values).catch(() => undefined))} noValidate>
        <fieldset disabled={!canEdit} style={{ border: 0, padding: 0, margin: 0 }}>
          <Stack>
            {update.error && <ErrorAlert error={update.error} />}
            <Card withBorder>
              <Stack>
                <Title order={3} size="h5">
                  {t('channels.website.access')}
                </Title>
                <TagsInput
                  label={t('channels.website.origins')}
                  description={t('channels.website.originsHelp')}
                  placeholder="https://www.example.com"
                  splitChars={[',', ' ']}
                  clearable
                  {...form.getInputProps('allowed_origins')}
                />
                <Switch
                  label={t('channels.website.verifiedOnly')}
                  description={t('channels.website.verifiedOnlyHelp')}
                  {...form.getInputProps('verified_only', { type: 'checkbox' })}
                />
                <SimpleGrid cols={{ base: 1, sm: 2 }}>
                  <Select
                    label={t('channels.website.language')}
                    allowDeselect={false}
                    data={[
                      { value: 'de', label: 'Deutsch' },
                      { value: 'en', label: 'English' },
                    ]}
                    {...form.getInputProps('language')}
                  />
                  <NumberInput
                    label={t('channels.website.budget')}
                    description={t('channels.website.budgetHelp')}
                    min={0}
                    max={10_000_000}
                    {...form.getInputProps('daily_message_budget')}
                  />
                </SimpleGrid>
              </Stack>
            </Card>
            <Card withBorder>
              <Stack>
                <Title order={3} size="h5">
                  {t('channels.website.appearance')}
                </Title>
                <SimpleGrid cols={{ base: 1, sm: 3 }}>
                  <ColorInput
                    label={t('channels.website.primary')}
                    format="hex"
                    withEyeDropper={false}
                    {...form.getInputProps('primary_color')}
                  />
                  <ColorInput
                    label={t('channels.website.background')}
                    format="hex"
                    withEyeDropper={false}
                    {...form.getInputProps('background_color')}
                  />
                  <ColorInput
                    label={t('channels.website.text')}
                    format="hex"
                    withEyeDropper={false}
                    {...form.getInputProps('text_color')}
                  />
                </SimpleGrid>
                <div>
                  <Text size="sm" fw={500} id="widget-position-label">
                    {t('channels.website.position')}
                  </Text>
                  <SegmentedControl
                    aria-labelledby="widget-position-label"
                    data={[
                      { value: 'bottom-right', label: t('channels.website.right') },
                      { value: 'bottom-left', label: t('channels.website.left') },
                    ]}
                    {...form.getInputProps('position')}
                  />
                </div>
                <Textarea
                  label={t('channels.website.greeting')}
                  description={t('channels.website.greetingHelp')}
                  autosize
                  minRows={2}
                  maxLength={500}
                  {...form.getInputProps('greeting')}
                />
                <TextInput
                  label={t('channels.website.avatar')}
                  description={t('channels.website.avatarHelp')}
                  placeholder="https://"
                  {...form.getInputProps('avatar_url')}
                />
              </Stack>
            </Card>
            <BusinessHoursCard form={form} replyEmail={data.reply_email} />
            {canEdit && (
              <Group>
                <Button type="submit" loading={update.isPending} disabled={!form.isDirty()}>
                  {t('common.save')}
                </Button>
              </Group>
            )}
          </Stack>
        </fieldset>
      </form>

      <Preview botName={bot.data.name} settings={data} values={form.values} />

      <Card withBorder>
        <Stack>
          <Title order={3} size="h5">
            {t('channels.website.install')}
          </Title>
          <Text size="sm">{t('channels.website.installHelp')}</Text>
          <CopyBlock
            label={t('channels.website.snippet')}
            value={snippetOf(origin, data.publishable_key)}
            testId="snippet"
          />
          <CopyBlock label={t('channels.website.csp')} value={cspLinesOf(origin)} testId="csp-lines" />
        </Stack>
      </Card>

      <Keys botId={botId} settings={data} />
    </Stack>
  );
}
