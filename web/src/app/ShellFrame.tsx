import { AppShell, Badge, Burger, Button, Group, Menu, NavLink, Text } from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { UnsavedChangesGuard } from '../components/unsaved-changes';
import { ApiError, api, setUnauthorizedHandler } from '../api/client';
import { ErrorAlert, Loading } from '../components/states';
import { useInboxLive } from '../features/inbox/live';
import { useInboxUnread } from '../features/inbox/queries';
import { LanguageSwitch } from './LanguageSwitch';
import { useMeQuery } from '../features/auth/queries';
import { MeProvider } from './session';
import { markSignedOut } from './session-state';
import { NAV, loginPath } from './nav';

export function ShellFrame() {
  const { t } = useTranslation();
  const [opened, { toggle, close }] = useDisclosure();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const me = useMeQuery();
  // Below the sm breakpoint the navigation is a drawer; while closed it is hidden outright, so no
  // strip of it (with the active link's highlight) can show at the left edge, not even while the
  // window is resized or the drawer slides shut.
  const mobile = useMediaQuery('(max-width: 47.99em)', false, { getInitialValueInEffect: false });
  const inboxOn = me.data?.permissions.includes('conversation:view') ?? false;
  useInboxLive(inboxOn, t('inbox.notification'));
  const unread = useInboxUnread(inboxOn).data?.count ?? 0;

  useEffect(() => {
    // The session ended: once to the sign-in page (the next sign-in starts with an empty cache).
    setUnauthorizedHandler(() => {
      markSignedOut();
      void navigate(loginPath(window.location), { replace: true });
    });
    return () => setUnauthorizedHandler(null);
  }, [navigate]);
  useEffect(close, [location.pathname, close]);

  if (me.isPending) return <Loading />;
  if (me.error instanceof ApiError && me.error.status === 401)
    return <Navigate to={loginPath(location)} replace />;
  if (me.error) return <ErrorAlert error={me.error} onRetry={() => void me.refetch()} />;
  const user = me.data;

  const signOut = async () => {
    await api.POST('/api/auth/logout');
    markSignedOut();
    await navigate('/login', { replace: true });
    queryClient.clear();
  };
  const isActive = (to: string) =>
    to === '/' ? location.pathname === '/' : location.pathname.startsWith(to);

  return (
    <MeProvider me={user}>
      <AppShell
        header={{ height: 56 }}
        navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
        padding="md"
      >
        <AppShell.Header>
          <Group h="100%" px="md" justify="space-between" wrap="nowrap">
            <Group gap="sm" wrap="nowrap">
              <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={t('nav.menu')} />
              <Text fw={700} size="lg" component={Link} to="/">
                Parley
              </Text>
              <Text size="sm" c="dimmed" visibleFrom="sm">
                {user.tenant.name}
              </Text>
            </Group>
            <Group gap="sm" wrap="nowrap">
              <LanguageSwitch />
              <Menu position="bottom-end">
                <Menu.Target>
                  <Button variant="subtle" size="compact-sm" aria-label={t('nav.userMenu')}>
                    <Text size="sm" truncate maw={160}>
                      {user.user.first_name ?? user.user.email}
                    </Text>
                  </Button>
                </Menu.Target>
                <Menu.Dropdown>
                  <Menu.Label>
                    {user.user.email} · {t(`roles.${user.user.role}`)}
                  </Menu.Label>
                  <Menu.Item component={Link} to="/settings/team">
                    {t('nav.password')}
                  </Menu.Item>
                  <Menu.Item onClick={() => void signOut()}>{t('nav.signOut')}</Menu.Item>
                </Menu.Dropdown>
              </Menu>
            </Group>
          </Group>
        </AppShell.Header>
        <AppShell.Navbar
          p="xs"
          aria-label={t('nav.main')}
          style={mobile && !opened ? { visibility: 'hidden' } : undefined}
        >
          {NAV.filter((item) => !item.permission || user.permissions.includes(item.permission)).map(
            (item) => (
              <NavLink
                key={item.to}
                component={Link}
                to={item.to}
                label={t(item.key)}
                rightSection={
                  item.to === '/inbox' && unread > 0 ? (
                    <Badge
                      size="sm"
                      color="red"
                      circle
                      aria-label={t('inbox.unreadCount', { count: unread })}
                    >
                      {unread}
                    </Badge>
                  ) : undefined
                }
                active={isActive(item.to)}
                aria-current={isActive(item.to) ? 'page' : undefined}
              />
            ),
          )}
        </AppShell.Navbar>
        <AppShell.Main>
          <UnsavedChangesGuard>
            <Outlet />
          </UnsavedChangesGuard>
        </AppShell.Main>
      </AppShell>
    </MeProvider>
  );
}
