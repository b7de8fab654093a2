import type { ComponentType } from 'react';
import { createBrowserRouter, Navigate, redirect, type LoaderFunctionArgs } from 'react-router';
import type { Me } from '../api/types';
import { loadTexts } from '../i18n';
import { NAV, loginPath } from './nav';
import { RouteError } from './RouteError';
import { currentSession, sessionGeneration } from './session-state';

/*
 * Every page is its own chunk, loaded when its route is first visited, with the texts of the
 * app: the sign-in page loads React, Mantine and its own form, not the flow editor, the charts,
 * the event forms, TanStack Query or the texts of the other pages.
 *
 * The pages behind sign-in load their code in their loaders, after the session is known (one
 * GET /api/me, or the sign-in's own answer): a visitor who is not signed in is sent to the
 * sign-in page before any of it is fetched. (A route's `lazy` would start fetching at once.)
 */
async function requireSession({ request }: LoaderFunctionArgs): Promise<Me> {
  const me = await currentSession();
  if (!me) throw redirect(loginPath(new URL(request.url)));
  return me;
}

type PageModule<K extends string> = Record<K, ComponentType>;

/** A page behind sign-in: its loader waits for the session, then fetches the page's code. */
function gated<K extends string, M extends PageModule<K>>(
  load: () => Promise<M>,
  name: K,
  wrap?: (page: ComponentType) => Promise<ComponentType>,
) {
  let Loaded: ComponentType | null = null;
  return {
    loader: async (args: LoaderFunctionArgs) => {
      await requireSession(args);
      if (!Loaded) {
        const [module] = await Promise.all([load(), loadTexts()]);
        Loaded = wrap ? await wrap(module[name]) : module[name];
      }
      return null;
    },
    Component: function GatedPage() {
      const Page = Loaded;
      return Page ? <Page /> : null;
    },
  };
}

/*
 * The signed-in frame in the query client. A new sign-in starts with an empty cache holding the
 * session (the sign-in's own answer, or the one GET /api/me) as the session query: the frame
 * asks nothing again.
 */
let seededGeneration = -1;
async function seedSession(me: Me): Promise<void> {
  const [{ queryClient }, { authKeys }] = await Promise.all([
    import('./query'),
    import('../features/auth/queries'),
  ]);
  if (seededGeneration === sessionGeneration()) return;
  queryClient.clear();
  queryClient.setQueryData(authKeys.me, me);
  seededGeneration = sessionGeneration();
}
const shellPage = gated(
  () => import('./Shell'),
  'Shell',
  async (Shell) => (await import('./query')).withQueries(Shell),
);
const shell = {
  ...shellPage,
  loader: async (args: LoaderFunctionArgs) => {
    await seedSession(await requireSession(args));
    return shellPage.loader(args);
  },
};

/** The start page: the overview, or the first page of the navigation the user may see (an agent: the inbox). */
export function startPath(permissions: readonly string[]): string {
  const first = NAV.find((item) => !item.permission || permissions.includes(item.permission));
  return first?.to ?? '/settings';
}
const overview = gated(() => import('../features/overview/OverviewPage'), 'OverviewPage');
const start = {
  ...overview,
  loader: async (args: LoaderFunctionArgs) => {
    const me = await requireSession(args);
    const to = startPath(me.permissions);
    if (to !== '/') throw redirect(to);
    return overview.loader(args);
  },
};

/** A page outside the signed-in shell that reads the API: inside the query client. */
const queryPage =
  <K extends string, M extends PageModule<K>>(load: () => Promise<M>, name: K) =>
  async () => {
    const [module, { withQueries }] = await Promise.all([load(), import('./query'), loadTexts()]);
    return { Component: withQueries(module[name]) };
  };

export const router = createBrowserRouter([
  {
    path: '/login',
    lazy: async () => ({ Component: (await import('../features/auth/LoginPage')).LoginPage }),
  },
  {
    path: '/invitation',
    lazy: queryPage(() => import('../features/users/AcceptInvitationPage'), 'AcceptInvitationPage'),
  },
  {
    path: '/',
    ...shell,
    errorElement: <RouteError />,
    HydrateFallback: () => null,
    children: [
      { index: true, ...start },
      { path: 'dashboard', element: <Navigate to="/" replace /> },
      { path: 'bots', ...gated(() => import('../features/bots/BotsPage'), 'BotsPage') },
      {
        path: 'bots/:botId',
        ...gated(() => import('../features/bots/BotPage'), 'BotPage'),
        children: [
          { index: true, ...gated(() => import('../features/bots/SettingsTab'), 'SettingsTab') },
          { path: 'prompt', ...gated(() => import('../features/prompt/PromptTab'), 'PromptTab') },
          {
            path: 'knowledge',
            ...gated(() => import('../features/knowledge/KnowledgeTab'), 'KnowledgeTab'),
          },
          { path: 'flow', ...gated(() => import('../features/flow/FlowTab'), 'FlowTab') },
          { path: 'channels', ...gated(() => import('../features/channels/ChannelsTab'), 'ChannelsTab') },
          { path: 'chat', ...gated(() => import('../features/chat/TestChatTab'), 'TestChatTab') },
        ],
      },
      { path: 'inbox', ...gated(() => import('../features/inbox/InboxPage'), 'InboxPage') },
      {
        path: 'conversations',
        ...gated(() => import('../features/conversations/ConversationsPage'), 'ConversationsPage'),
      },
      {
        path: 'conversations/:conversationId',
        ...gated(() => import('../features/conversations/ConversationPage'), 'ConversationPage'),
      },
      { path: 'events', ...gated(() => import('../features/events/EventsPage'), 'EventsPage') },
      { path: 'events/:eventId', ...gated(() => import('../features/events/EventPage'), 'EventPage') },
      { path: 'contacts', ...gated(() => import('../features/contacts/ContactsPage'), 'ContactsPage') },
      {
        path: 'contacts/:contactId',
        ...gated(() => import('../features/contacts/ContactPage'), 'ContactPage'),
      },
      {
        path: 'settings',
        ...gated(() => import('../features/settings/SettingsPage'), 'SettingsPage'),
        children: [
          { index: true, ...gated(() => import('../features/settings/SettingsIndex'), 'SettingsIndex') },
          { path: 'api', ...gated(() => import('../features/api-keys/ApiKeysPage'), 'ApiKeysPage') },
          { path: 'webhooks', ...gated(() => import('../features/webhooks/WebhooksPage'), 'WebhooksPage') },
          { path: 'team', ...gated(() => import('../features/users/TeamPage'), 'TeamPage') },
          {
            path: 'saved-replies',
            ...gated(() => import('../features/saved-replies/SavedRepliesPage'), 'SavedRepliesPage'),
          },
        ],
      },
      { path: '*', element: <Navigate to="/" replace /> },
    ],
  },
]);
