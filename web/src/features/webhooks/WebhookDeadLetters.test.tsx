import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { json, serveFakeApi } from '../../test/render';

const dead = {
  id: '6f1d2c3b-0000-4000-8000-000000000001',
  kind: 'webhook',
  status: 'dead',
  attempts: 8,
  payload: { delivery_id: '6f1d2c3b-0000-4000-8000-000000000001' },
  reason: 'no answer within 10000 ms',
  last_status_code: null,
  next_attempt_at: null,
  dead_at: '2026-03-10T12:00:00.000Z',
  created_at: '2026-03-09T12:00:00.000Z',
};

/** The server as the component sees it: one dead letter until it is sent again. */
let resent = false;
const { requests } = serveFakeApi(
  (line) => {
    if (line.startsWith('POST ')) {
      resent = true;
      return json({ message: { ...dead, status: 'retry', dead_at: null } }, 202);
    }
    return json({ data: resent ? [] : [dead], next_cursor: null });
  },
  { withSearch: true },
);

describe('WebhookDeadLetters', () => {
  it('lists dead deliveries with their reason and sends one again', async () => {
    const { WebhookDeadLetters, deadSubject } = await import('./WebhookDeadLetters');
    expect(deadSubject({ payload: { delivery_id: 'd-1' } })).toBe('d-1');
    expect(deadSubject({ payload: { to: 'x' } })).toBe('{"to":"x"}');
    render(
      <MantineProvider>
        <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
          <WebhookDeadLetters />
        </QueryClientProvider>
      </MantineProvider>,
    );
    expect(await screen.findByText('no answer within 10000 ms')).toBeTruthy();
    expect(requests[0]).toBe('GET /api/outbox/dead?kind=webhook&limit=50');
    await userEvent.click(screen.getByRole('button', { name: `Zustellung ${dead.id} erneut senden` }));
    await waitFor(() => expect(requests).toContain(`POST /api/outbox/${dead.id}/resend`));
    expect(await screen.findByText('Keine unzustellbaren Sendungen')).toBeTruthy();
  });
});
