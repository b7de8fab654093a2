import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';

import { json, renderWithApp, serveFakeApi } from '../../test/render';

const BOT = '6f1d2c3b-0000-4000-8000-0000000000b1';
const group = {
  key: 'parkplätze',
  question: 'Habt ihr Parkplätze?',
  count: 3,
  handed_over: 1,
  last_seen: '2026-03-10T12:00:00.000Z',
  conversation_ids: [],
  person_answer: 'Ja, im Hof.',
};
let cleared = false;
const { requests } = serveFakeApi((line) => {
  if (line.startsWith('POST ')) {
    cleared = true;
    return new Response(null, { status: 204 });
  }
  return json({ data: cleared ? [] : [group] });
});

describe('UnansweredQuestions', () => {
  it('lists groups with counts, hands one to the entry form and clears one', async () => {
    const { UnansweredQuestions } = await import('./UnansweredQuestions');
    const onUse = vi.fn();
    renderWithApp(<UnansweredQuestions botId={BOT} canEdit onUse={onUse} />);
    expect(await screen.findByText('Habt ihr Parkplätze?')).toBeTruthy();
    expect(screen.getByText('1 übergeben')).toBeTruthy();
    expect(screen.getByText(/Ja, im Hof\./)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Eintrag anlegen für: Habt ihr Parkplätze?' }));
    expect(onUse).toHaveBeenCalledWith(
      expect.objectContaining({ question: 'Habt ihr Parkplätze?', person_answer: 'Ja, im Hof.' }),
    );
    await userEvent.click(
      screen.getByRole('button', { name: 'Als erledigt markieren: Habt ihr Parkplätze?' }),
    );
    await waitFor(() => expect(requests).toContain(`POST /api/bots/${BOT}/unanswered/resolve`));
    expect(await screen.findByText(/Keine offenen Fragen/)).toBeTruthy();
  });
});
