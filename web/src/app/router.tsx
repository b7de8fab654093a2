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
  <M,>(load: () => Promise<M>, pick: (module: M) => ComponentType) =>
  async () => {
    const [module] = await Promise.all([load(), loadTexts()]);
    return { Component: pick(module) };
  };

/** A page outside the signed-in shell that reads the API: inside the query client. */
const queryPage =
  <M,>(load: () => Promise<M>, pick: (module: M) => ComponentType) =>
  async () => {
    const [module, { withQueries }] = await Promise.all([load(), import('./query'), loadTexts()]);
    return { Component: withQueries(pick(module)) };
  };

export const router = createBrowserRouter([
  {
    path: '/login',
    lazy: async () => ({ Component: (await import('../features/auth/LoginPage')).LoginPage }),
  },
  {
    path: '/invitation',
    lazy: queryPage(
      () => import('../features/users/AcceptInvitationPage'),
      (m) => m.AcceptInvitationPage,
    ),
  },
  {
    path: '/',
    lazy: queryPage(
      () => import('./Shell'),
      (m) => m.Shell,
    ),
    errorElement: <RouteError />,
    children: [
      {
        index: true,
        lazy: page(
          () => import('../features/overview/OverviewPage'),
          (m) => m.OverviewPage,
        ),
      },
      { path: 'dashboard', element: <Navigate to="/" replace /> },
      {
        path: 'bots',
        lazy: page(
          () => import('../features/bots/BotsPage'),
          (m) => m.BotsPage,
        ),
      },
      {
        path: 'bots/:botId',
        lazy: page(
          () => import('../features/bots/BotPage'),
          (m) => m.BotPage,
        ),
        children: [
          {
            index: true,
            lazy: page(
              () => import('../features/bots/SettingsTab'),
              (m) => m.SettingsTab,
            ),
          },
          {
            path: 'prompt',
            lazy: page(
              () => import('../features/prompt/PromptTab'),
              (m) => m.PromptTab,
            ),
          },
          {
            path: 'knowledge',
            lazy: page(
              () => import('../features/knowledge/KnowledgeTab'),
              (m) => m.KnowledgeTab,
            ),
          },
          {
            path: 'flow',
            lazy: page(
              () => import('../features/flow/FlowTab'),
              (m) => m.FlowTab,
            ),
          },
          {
            path: 'channels',
            lazy: page(
              () => import('../features/channels/ChannelsTab'),
              (m) => m.ChannelsTab,
            ),
          },
          {
            path: 'chat',
            lazy: page(
              () => import('../features/chat/TestChatTab'),
              (m) => m.TestChatTab,
            ),
          },
        ],
      },
      {
        path: 'inbox',
        lazy: page(
          () => import('../features/inbox/InboxPage'),
          (m) => m.InboxPage,
        ),
      },
      {
        path: 'conversations',
        lazy: page(
          () => import('../features/conversations/ConversationsPage'),
          (m) => m.ConversationsPage,
        ),
      },
      {
        path: 'conversations/:conversationId',
        lazy: page(
          () => import('../features/conversations/ConversationPage'),
          (m) => m.ConversationPage,
        ),
      },
      {
        path: 'events',
        lazy: page(
          () => import('../features/events/EventsPage'),
          (m) => m.EventsPage,
        ),
      },
      {
        path: 'events/:eventId',
        lazy: page(
          () => import('../features/events/EventPage'),
          (m) => m.EventPage,
        ),
      },
      {
        path: 'contacts',
        lazy: page(
          () => import('../features/contacts/ContactsPage'),
          (m) => m.ContactsPage,
        ),
      },
      {
        path: 'contacts/:contactId',
        lazy: page(
          () => import('../features/contacts/ContactPage'),
          (m) => m.ContactPage,
        ),
      },
      {
        path: 'settings',
        lazy: page(
          () => import('../features/settings/SettingsPage'),
          (m) => m.SettingsPage,
        ),
        children: [
          {
            index: true,
            lazy: page(
              () => import('../features/settings/SettingsIndex'),
              (m) => m.SettingsIndex,
            ),
          },
          {
            path: 'api',
            lazy: page(
              () => import('../features/api-keys/ApiKeysPage'),
              (m) => m.ApiKeysPage,
            ),
          },
          {
            path: 'webhooks',
            lazy: page(
              () => import('../features/webhooks/WebhooksPage'),
              (m) => m.WebhooksPage,
            ),
          },
          {
            path: 'team',
            lazy: page(
              () => import('../features/users/TeamPage'),
              (m) => m.TeamPage,
            ),
          },
        ],
      },
      { path: '*', element: <Navigate to="/" replace /> },
    ],
  },
]);
