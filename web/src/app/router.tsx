import type { ComponentType } from 'react';
import { createBrowserRouter, Navigate } from 'react-router';
import { loadTexts } from '../i18n';
import { RouteError } from './RouteError';

/*
 * Every page is its own chunk, loaded when its route is first visited, with the texts of the
 * app: the sign-in page loads React, Mantine and its own form, not the flow editor, the charts,
 * the event forms, TanStack Query or the texts of the other pages.
 */
const page =
  <K extends string, M extends Record<K, ComponentType>>(load: () => Promise<M>, name: K) =>
  async () => {
    const [module] = await Promise.all([load(), loadTexts()]);
    return { Component: module[name] };
  };

/** A page outside the signed-in shell that reads the API: inside the query client. */
const queryPage =
  <K extends string, M extends Record<K, ComponentType>>(load: () => Promise<M>, name: K) =>
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
    lazy: queryPage(() => import('./Shell'), 'Shell'),
    errorElement: <RouteError />,
    children: [
      { index: true, lazy: page(() => import('../features/overview/OverviewPage'), 'OverviewPage') },
      { path: 'dashboard', element: <Navigate to="/" replace /> },
      { path: 'bots', lazy: page(() => import('../features/bots/BotsPage'), 'BotsPage') },
      {
        path: 'bots/:botId',
        lazy: page(() => import('../features/bots/BotPage'), 'BotPage'),
        children: [
          { index: true, lazy: page(() => import('../features/bots/SettingsTab'), 'SettingsTab') },
          { path: 'prompt', lazy: page(() => import('../features/prompt/PromptTab'), 'PromptTab') },
          {
            path: 'knowledge',
            lazy: page(() => import('../features/knowledge/KnowledgeTab'), 'KnowledgeTab'),
          },
          { path: 'flow', lazy: page(() => import('../features/flow/FlowTab'), 'FlowTab') },
          { path: 'channels', lazy: page(() => import('../features/channels/ChannelsTab'), 'ChannelsTab') },
          { path: 'chat', lazy: page(() => import('../features/chat/TestChatTab'), 'TestChatTab') },
        ],
      },
      { path: 'inbox', lazy: page(() => import('../features/inbox/InboxPage'), 'InboxPage') },
      {
        path: 'conversations',
        lazy: page(() => import('../features/conversations/ConversationsPage'), 'ConversationsPage'),
      },
      {
        path: 'conversations/:conversationId',
        lazy: page(() => import('../features/conversations/ConversationPage'), 'ConversationPage'),
      },
      { path: 'events', lazy: page(() => import('../features/events/EventsPage'), 'EventsPage') },
      { path: 'events/:eventId', lazy: page(() => import('../features/events/EventPage'), 'EventPage') },
      { path: 'contacts', lazy: page(() => import('../features/contacts/ContactsPage'), 'ContactsPage') },
      {
        path: 'contacts/:contactId',
        lazy: page(() => import('../features/contacts/ContactPage'), 'ContactPage'),
      },
      {
        path: 'settings',
        lazy: page(() => import('../features/settings/SettingsPage'), 'SettingsPage'),
        children: [
          { index: true, lazy: page(() => import('../features/settings/SettingsIndex'), 'SettingsIndex') },
          { path: 'api', lazy: page(() => import('../features/api-keys/ApiKeysPage'), 'ApiKeysPage') },
          { path: 'webhooks', lazy: page(() => import('../features/webhooks/WebhooksPage'), 'WebhooksPage') },
          { path: 'team', lazy: page(() => import('../features/users/TeamPage'), 'TeamPage') },
        ],
      },
      { path: '*', element: <Navigate to="/" replace /> },
    ],
  },
]);
