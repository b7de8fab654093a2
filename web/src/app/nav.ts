/** The frame's navigation, each entry shown to who holds its permission. */
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

/** The sign-in page, coming back to where the user was. */
export function loginPath(location: { pathname: string; search: string }): string {
  const next = `${location.pathname}${location.search}`;
  return next === '/' ? '/login' : `/login?next=${encodeURIComponent(next)}`;
}
