import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { serveFakeApi, json, renderWithApp } from '../../test/render';

const ID = '6f1d2c3b-0000-4000-8000-0000000000d1';
const REPLY = '6f1d2c3b-0000-4000-8000-0000000000e2';
const base = {
  channel: 'api',
  tokens: 0,
  model: null,
  knowledge_used: false,
  created_at: '2026-03-10T11:00:00.000Z',
  author_user_id: null,
  author_name: null,
  sources: [],
  actions: [],
  blocks: [],
  handover_reason: null,
  review: null,
};
const conversation = {
  id: ID,
  bot_id: '6f1d2c3b-0000-4000-8000-0000000000b1',
  channel: 'api',
  sender_id: 'kundin-7',
  metadata: {},
  status: 'ended',
  message_count: 4,
  last_message_at: '2026-03-10T12:00:00.000Z',
  ended_at: null,
  end_reason: null,
  escalated_at: null,
  escalation_reason: null,
  rating: 2,
  rating_comment: 'Zu langsam',
  rated_at: '2026-03-10T12:00:00.000Z',
  contact_id: null,
  is_test: false,
  created_at: '2026-03-10T11:00:00.000Z',
  updated_at: '2026-03-10T12:00:00.000Z',
  next_cursor: null,
  messages: [
    { ...base, id: '6f1d2c3b-0000-4000-8000-0000000000e1', role: 'user', content: 'Wann habt ihr offen?' },
    {
      ...base,
      id: REPLY,
      role: 'assistant',
      content: 'Montags bis freitags von 9 bis 18 Uhr.',
      tokens: 42,
      model: 'gpt-test',
      knowledge_used: true,
      sources: [{ entry_id: 'k1', title: 'Öffnungszeiten', score: 0.87 }],
      actions: [{ type: 'booking', status: 'confirmed', event_title: 'Yoga' }],
    },
    {
      ...base,
      id: '6f1d2c3b-0000-4000-8000-0000000000e3',
      role: 'assistant',
      content: 'Ich verbinde Sie mit einem Menschen.',
      handover_reason: 'customer_request',
    },
    {
      ...base,
      id: '6f1d2c3b-0000-4000-8000-0000000000e4',
      role: 'assistant',
      content: 'Hier ist Anna.',
      author_user_id: '6f1d2c3b-0000-4000-8000-0000000000a1',
      author_name: 'Anna Team',
    },
  ],
};

const { requests, bodies } = serveFakeApi((line) => {
  if (line === `GET /api/conversations/${ID}`) return json(conversation);
  if (line === `PUT /api/conversations/${ID}/messages/${REPLY}/review`) {
    return json({ ...conversation.messages[1], review: null });
  }
  return json({ data: [], next_cursor: null });
});

describe('ConversationPage (review)', () => {
  async function show(permissions: string[]) {
    const { ConversationPage } = await import('./ConversationPage');
    renderWithApp(<ConversationPage />, {
      me: { permissions },
      path: '/conversations/:conversationId',
      route: `/conversations/${ID}`,
    });
    await screen.findByText('Montags bis freitags von 9 bis 18 Uhr.');
  }

  it('shows sources with scores, actions, hand-over, tokens, model, the customer rating; rates a reply', async () => {
    await show(['conversation:view', 'conversation:review']);
    expect(screen.getByTestId('customer-rating')).toHaveTextContent('Zu langsam');
    const [facts, handover] = screen.getAllByTestId('reply-facts');
    expect(facts).toHaveTextContent('Öffnungszeiten');
    expect(facts).toHaveTextContent('aus dem Wissen');
    expect(facts).toHaveTextContent('GPT Test');
    expect(facts).toHaveTextContent('42 Tokens');
    expect(facts).toHaveTextContent('Aktion: booking: Yoga');
    expect(handover).toHaveTextContent('übergeben: Kunde wollte einen Menschen');
    // A person's reply is marked as such and is not rated.
    expect(screen.getByTestId('message-person')).toHaveTextContent('Anna Team (Team)');
    expect(within(screen.getByTestId('message-person')).queryByTestId('reply-verdict')).toBeNull();

    const verdict = screen.getAllByTestId('reply-verdict')[0]!;
    await userEvent.type(
      within(verdict).getByRole('textbox', { name: 'Notiz zu dieser Antwort' }),
      'Preis fehlt',
    );
    await userEvent.click(within(verdict).getByRole('button', { name: 'Schlecht' }));
    await waitFor(() => expect(requests).toContain(`PUT /api/conversations/${ID}/messages/${REPLY}/review`));
    expect(bodies).toContainEqual({ verdict: 'bad', note: 'Preis fehlt' });
  });

  it('without conversation:review shows no rating controls', async () => {
    await show(['conversation:view']);
    expect(screen.queryByTestId('reply-verdict')).toBeNull();
  });
});
