import { Anchor, Breadcrumbs, Tabs } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation, useNavigate, useParams } from 'react-router';
import { PageTitle } from '../../components/PageTitle';
import { ErrorAlert, Loading } from '../../components/states';
import { BotStatusBadge } from './BotStatusBadge';
import { useBot } from './queries';

const TABS = ['settings', 'prompt', 'knowledge', 'flow', 'channels', 'chat'] as const;

export function useBotId(): string {
  const { botId } = useParams();
  if (!botId) throw new Error('route without :botId');
  return botId;
}

export function BotPage() {
  const { t } = useTranslation();
  const botId = useBotId();
  const location = useLocation();
  const navigate = useNavigate();
  const bot = useBot(botId);
  const current = location.pathname.split('/')[3] || 'settings';

  if (bot.isPending) return <Loading />;
  if (bot.error) return <ErrorAlert error={bot.error} />;
  return (
    <>
      <Breadcrumbs mb="xs">
        <Anchor component={Link} to="/bots" size="sm">
          {t('bots.title')}
        </Anchor>
        <span>{bot.data.name}</span>
      </Breadcrumbs>
      <PageTitle title={bot.data.name}>
        <BotStatusBadge bot={bot.data} />
      </PageTitle>
      <Tabs
        value={current}
        onChange={(value) =>
          void navigate(`/bots/${botId}${value && value !== 'settings' ? `/${value}` : ''}`)
        }
        mb="md"
      >
        {/* The tabs wrap onto a second line on a phone: every tab stays in view. */}
        <Tabs.List style={{ flexWrap: 'wrap' }}>
          {TABS.map((tab) => (
            <Tabs.Tab key={tab} value={tab}>
              {t(`bot.tabs.${tab}`)}
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>
      <Outlet />
    </>
  );
}
