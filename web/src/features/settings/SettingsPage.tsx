import { Tabs } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation, useNavigate } from 'react-router';
import { useMe } from '../../app/session';
import { PageTitle } from '../../components/PageTitle';

const TABS = [
  { value: 'api', permission: 'api_key:manage' },
  { value: 'webhooks', permission: 'webhook:manage' },
] as const;

export function SettingsPage() {
  const { t } = useTranslation();
  const me = useMe();
  const location = useLocation();
  const navigate = useNavigate();
  const current = location.pathname.split('/')[2] ?? 'api';
  const tabs = TABS.filter((tab) => me.permissions.includes(tab.permission));
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
