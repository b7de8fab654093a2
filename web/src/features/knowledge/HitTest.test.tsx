import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { json, renderWithApp, serveFakeApi } from '../../test/render';

const BOT = '6f1d2c3b-0000-4000-8000-0000000000b1';

/** The hit test's answer as the server gives it: one hit above the threshold, and the decision. */
function answer(q: string) {
  const handOver = q.includes('Hubschrauberlandeplatz');
  return {
    query: q,
    min_score: 0.4,
    results: [
      {
        entry_id: '6f1d2c3b-0000-4000-8000-0000000000e1',
        chunk_id: '6f1d2c3b-0000-4000-8000-0000000000c1',
        title: 'Hotel Seeblick – Restaurant',
        content: 'Das Restaurant ist täglich geöffnet.',
        score: 0.62,
        source_url: null,
        used_in_chat: !handOver,
      },
    ],
    decision: handOver
      ? {
          answer: false,
          reason: 'missing_key_terms',
          key_terms: [],
          missing_terms: ['hubschrauberlandeplatz'],
        }
      : { answer: true, reason: 'answer', key_terms: ['as206'], missing_terms: [] },
  };
}

const { requests } = serveFakeApi((_line, url) => json(answer(url.searchParams.get('q') ?? '')));

describe('hit test', () => {
  it('shows beside the scores whether the chat answers or hands over, and which key terms are missing', async () => {
    const { HitTest } = await import('./HitTest');
    renderWithApp(<HitTest botId={BOT} />);
    const input = screen.getByLabelText('Frage wie ein Kunde');
    await userEvent.type(input, 'Hat das Hotel Seeblick einen Hubschrauberlandeplatz?');
    await userEvent.click(screen.getByRole('button', { name: 'Testen' }));
    const decision = await screen.findByTestId('hit-decision');
    expect(decision.textContent).toContain('Der Bot hat keine Antwort und übergibt');
    expect(decision.textContent).toContain(
      'Kein Treffer über der Schwelle enthält alle Schlüsselbegriffe der Frage.',
    );
    expect(screen.getByTestId('hit-missing-terms').textContent).toBe(
      'Fehlende Schlüsselbegriffe: hubschrauberlandeplatz',
    );
    expect(requests).toContain(`GET /api/bots/${BOT}/knowledge/search`);

    await userEvent.clear(input);
    await userEvent.type(input, 'Was kostet das Messer AS-206?');
    await userEvent.click(screen.getByRole('button', { name: 'Testen' }));
    await screen.findByText('Der Bot antwortet aus der Wissensdatenbank');
    expect(screen.queryByTestId('hit-missing-terms')).toBeNull();
    expect(screen.getByTestId('hit-decision').textContent).toContain('Schlüsselbegriffe der Frage: as206');
  });
});
