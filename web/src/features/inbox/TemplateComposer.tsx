import { Alert, Button, Card, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { notify } from '../../components/notify';
import { errorMessage } from '../../components/states';
import { formatDateTime } from '../../format';
import {
  previewTemplate,
  useChannelState,
  useConversationTemplates,
  useSendTemplate,
  type ChannelTemplate,
} from './channel-queries';

/**
 * WhatsApp's 24-hour window in the inbox: the time left while it is open (with "Vorlage senden"
 * on demand); once it is closed a free-form reply is refused, and "Vorlage senden" offers the
 * connection's approved templates at once, with one input per parameter (the header's text or
 * media link, the body's placeholders, a link's end), labelled by what it fills, and a preview.
 */
export function WhatsAppWindow({ id, canSend }: { id: string; canSend: boolean }) {
  const { t, i18n } = useTranslation();
  const state = useChannelState(id, true);
  // With the window open a template is optional (a free reply goes too): shown on demand.
  const [templateOpen, setTemplateOpen] = useState(false);
  const win = state.data?.window;
  const closed = win ? !win.open : false;
  if (!win) return null;
  if (!closed)
    return (
      <Stack gap="xs" mb="xs">
        <Group gap="xs" justify="space-between" wrap="nowrap">
          <Text size="sm" c="dimmed" data-testid="window-open">
            {t('inbox.window.open', {
              hours: Math.floor(win.remaining_seconds / 3600),
              minutes: Math.floor((win.remaining_seconds % 3600) / 60),
              until: formatDateTime(win.closes_at, i18n.language),
            })}
          </Text>
          {canSend && (
            <Button
              size="compact-xs"
              variant="subtle"
              style={{ flexShrink: 0 }}
              onClick={() => setTemplateOpen((open) => !open)}
            >
              {t(templateOpen ? 'inbox.template.hide' : 'inbox.template.choose')}
            </Button>
          )}
        </Group>
        {canSend && templateOpen && (
          <Card withBorder padding="xs" data-testid="window-open-template">
            <TemplateForm id={id} />
          </Card>
        )}
      </Stack>
    );
  return (
    <Alert color="orange" mb="sm" title={t('inbox.window.closedTitle')} data-testid="window-closed">
      <Text size="sm" mb="xs">
        {t('inbox.window.closed')}
      </Text>
      {canSend && <TemplateForm id={id} />}
    </Alert>
  );
}

/** The label of a parameter's input: what it fills. */
function useParameterLabel() {
  const { t } = useTranslation();
  return (p: ChannelTemplate['parameters'][number]) => {
    if (p.part === 'button') return t('inbox.template.buttonUrl', { text: p.button_text ?? '' });
    if (p.part === 'header' && p.key === null)
      return t(`inbox.template.headerMedia_${p.kind as 'image' | 'document' | 'video'}`);
    if (p.part === 'header')
      return p.kind === 'url'
        ? t('inbox.template.headerUrl')
        : t('inbox.template.headerParameter', { key: p.key });
    return p.key && /^\d+$/.test(p.key)
      ? t('inbox.template.parameter', { n: p.key })
      : t('inbox.template.parameterNamed', { key: p.key ?? '' });
  };
}

function TemplateForm({ id }: { id: string }) {
  const { t } = useTranslation();
  const label = useParameterLabel();
  const templates = useConversationTemplates(id, true);
  const [chosen, setChosen] = useState<string | null>(null);
  const [parameters, setParameters] = useState<string[]>([]);
  const send = useSendTemplate(id, {
    onSuccess: () => {
      setChosen(null);
      setParameters([]);
      notify(t('inbox.template.sent'));
    },
    onError: (error) => notify(errorMessage(error, t('inbox.failed')), 'red'),
  });
  const list = templates.data?.data ?? [];
  const key = (tpl: { name: string; language: string }) => `${tpl.name}|${tpl.language}`;
  const template = list.find((tpl) => key(tpl) === chosen);
  if (templates.isSuccess && list.length === 0)
    return (
      <Text size="sm" c="dimmed">
        {t('inbox.template.none')}
      </Text>
    );
  const complete = template && parameters.filter((p) => p.trim()).length === template.parameter_count;
  return (
    <Stack gap="xs">
      <Select
        label={t('inbox.template.choose')}
        placeholder={t('inbox.template.placeholder')}
        data={list.map((tpl) => ({ value: key(tpl), label: `${tpl.name} (${tpl.language})` }))}
        value={chosen}
        onChange={(value) => {
          setChosen(value);
          const next = list.find((tpl) => key(tpl) === value);
          setParameters(Array.from({ length: next?.parameter_count ?? 0 }, () => ''));
        }}
        data-testid="template-select"
      />
      {template && !template.sendable && (
        <Alert color="gray" title={t('inbox.template.unsupported')} data-testid="template-unsupported">
          {template.unsupported}
        </Alert>
      )}
      {template?.sendable && (
        <>
          {template.parameters.map((p, i) => (
            <TextInput
              key={i}
              label={label(p)}
              description={p.url ?? undefined}
              placeholder={p.example ? t('inbox.template.example', { example: p.example }) : undefined}
              type={p.part === 'header' && p.key === null ? 'url' : 'text'}
              value={parameters[i] ?? ''}
              maxLength={1024}
              onChange={(e) => {
                const next = [...parameters];
                next[i] = e.currentTarget.value;
                setParameters(next);
              }}
            />
          ))}
          <Card withBorder padding="xs" bg="var(--mantine-color-body)" data-testid="template-preview">
            <Text size="xs" c="dimmed">
              {t('inbox.template.preview')}
            </Text>
            <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {previewTemplate(template, parameters)}
            </Text>
          </Card>
          <Group>
            <Button
              onClick={() =>
                send.mutate({
                  name: template.name,
                  language: template.language,
                  parameters: parameters.map((p) => p.trim()),
                })
              }
              disabled={!complete || send.isPending}
            >
              {t('inbox.template.send')}
            </Button>
          </Group>
        </>
      )}
    </Stack>
  );
}
