import { Alert, Button, Group, List, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Bot, BotPatch } from '../../api/types';
import { useCan } from '../../app/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorAlert } from '../../components/states';
import { BlockReasons } from '../flow/BlockReasons';
import { refusedActivation } from './activation';
import { notify } from '../../components/notify';
import { useMissingText } from './GoLiveChecklist';
import { Section } from '../../components/Section';
import { usePatchBot } from './queries';

export const ON: BotPatch = { is_active: true, status: 'active' };

export const OFF: BotPatch = { is_active: false, status: 'disabled' };

export function Activation({ bot }: { bot: Bot }) {
  const { t } = useTranslation();
  const canEdit = useCan('bot:edit');
  const on = bot.is_active && bot.status !== 'disabled';
  const toggle = usePatchBot(bot.id, {
    onSaved: (updated) => notify(updated.is_active ? t('bot.activated') : t('bot.deactivated')),
  });
  const refused = refusedActivation(toggle.error);
  const missing = useMissingText(bot.id);
  return (
    <Section title={t('bot.activation')} intro={on ? t('bot.isOn') : t('bot.isOff')}>
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
          <ConfirmButton
            size="sm"
            variant="light"
            loading={toggle.isPending}
            title={t('bot.deactivate')}
            text={t('bot.deactivateConfirm')}
            onConfirm={() => toggle.mutate(OFF)}
          >
            {t('bot.deactivate')}
          </ConfirmButton>
        ) : (
          <Group gap="sm">
            <Button
              color="teal"
              loading={toggle.isPending}
              onClick={() => toggle.mutate(ON)}
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
    </Section>
  );
}
