import { createBrowserRouter, Navigate } from 'react-router';
import { LoginPage } from '../features/auth/LoginPage';
import { BotPage } from '../features/bots/BotPage';
import { BotsPage } from '../features/bots/BotsPage';
import { SettingsTab } from '../features/bots/SettingsTab';
import { TestChatTab } from '../features/chat/TestChatTab';
import { ContactPage, ContactsPage } from '../features/contacts/ContactsPage';
import { ConversationPage } from '../features/conversations/ConversationPage';
import { ConversationsPage } from '../features/conversations/ConversationsPage';
import { EventPage } from '../features/events/EventPage';
import { EventsPage } from '../features/events/EventsPage';
import { FlowTab } from '../features/flow/FlowTab';
import { KnowledgeTab } from '../features/knowledge/KnowledgeTab';
import { OverviewPage } from '../features/overview/OverviewPage';
import { PromptTab } from '../features/prompt/PromptTab';
import { ApiKeysPage } from '../features/settings/ApiKeysPage';
import { SettingsIndex, SettingsPage } from '../features/settings/SettingsPage';
import { WebhooksPage } from '../features/settings/WebhooksPage';
import { AcceptInvitationPage } from '../features/team/AcceptInvitationPage';
import { TeamPage } from '../features/team/TeamPage';
import { RouteError } from './RouteError';
import { Shell } from './Shell';

export const router = createBrowserRouter([
  { path: '/login', element: <LoginPage /> },
  { path: '/invitation', element: <AcceptInvitationPage /> },
  {
    path: '/',
    element: <Shell />,
    errorElement: <RouteError />,
    children: [
      { index: true, element: <OverviewPage /> },
      { path: 'dashboard', element: <Navigate to="/" replace /> },
      { path: 'bots', element: <BotsPage /> },
      {
        path: 'bots/:botId',
        element: <BotPage />,
        children: [
          { index: true, element: <SettingsTab /> },
          { path: 'prompt', element: <PromptTab /> },
          { path: 'knowledge', element: <KnowledgeTab /> },
          { path: 'flow', element: <FlowTab /> },
          { path: 'chat', element: <TestChatTab /> },
        ],
      },
      { path: 'conversations', element: <ConversationsPage /> },
      { path: 'conversations/:conversationId', element: <ConversationPage /> },
      { path: 'events', element: <EventsPage /> },
      { path: 'events/:eventId', element: <EventPage /> },
      { path: 'contacts', element: <ContactsPage /> },
      { path: 'contacts/:contactId', element: <ContactPage /> },
      {
        path: 'settings',
        element: <SettingsPage />,
        children: [
          { index: true, element: <SettingsIndex /> },
          { path: 'api', element: <ApiKeysPage /> },
          { path: 'webhooks', element: <WebhooksPage /> },
          { path: 'team', element: <TeamPage /> },
        ],
      },
      { path: '*', element: <Navigate to="/" replace /> },
    ],
  },
]);
