import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { ShellFrame } from './ShellFrame';

export const NAV = [
  { to: '/', key: 'nav.overview', permission: 'usage:view' },
  { to: '/bots', key: 'nav.bots', permission: 'bot:view' },
  { to: '/inbox', key: 'nav.inbox', permission: 'conversation:view' },
  { to: '/conversations', key: 'nav.conversations', permission: 'conversation:view' },
  { to: '/events', key: 'nav.events', permission: 'event:view' },
  { to: '/contacts', key: 'nav.contacts', permission: 'contact:view' },
  // Everyone reaches Settings: the team tab holds each user's own password.
  { to: '/settings', key: 'nav.settings', permission: null },
] as const;

export function loginPath(location: { pathname: string; search: string }): string {
  const next = `${location.pathname}${location.search}`;
  return next === '/' ? '/login' : `/login?next=${encodeURIComponent(next)}`;
}

/**
 * The signed-in frame: navigation, language, user menu; signs out to /login when the session
 * ends. Confirmation dialogs and notifications live here, so the sign-in page does not load them.
 */
export function Shell() {
  return (
    <ModalsProvider>
      <Notifications position="top-right" />
      <ShellFrame />
    </ModalsProvider>
  );
}
