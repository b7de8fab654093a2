import { Tabs } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation, useNavigate } from 'react-router';
import { useMe } from '../../app/session';
import { PageTitle } from '../../components/PageTitle';

// Team is open to everyone: managers see the team, every user changes their own password there.
const TABS = [
  { value: 'api', permission: 'api_key:manage' },
  { value: 'webhooks', permission: 'webhook:manage' },
  { value: 'team', permission: null },
  { value: 'saved-replies', permission: 'inbox:work' },
] as const;

export function visibleTabs(permissions: readonly string[]) {
  return TABS.filter((tab) => tab.permission === null || permissions.includes(tab.permission));
}

export function SettingsPage() {
  const { t } = useTranslation();
  const me = useMe();
  const location = useLocation();
  const navigate = useNavigate();
  const current = location.pathname.split('/')[2] ?? 'api';
  const tabs = visibleTabs(me.permissions);
  return (
    <>
      <PageTitle title={t('settings.title')} />
      <Tabs value={current} onChange={(value) => void navigate(`/settings/${value}`)} mb="md">
        <Tabs.List>
          {tabs.map((tab) => (
            <Tabs.Tab key={tab.value} value={tab.value}>
              {t(`settings.tabs.${tab.value}`)}
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>
      <Outlet />
    </>
  );
}
