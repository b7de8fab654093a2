import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { serveFakeApi, json, renderWithApp } from '../../test/render';

const ID = '6f1d2c3b-0000-4000-8000-0000000000c1';
const OTHER = '6f1d2c3b-0000-4000-8000-0000000000c2';
const BOUNCED = '6f1d2c3b-0000-4000-8000-0000000000c3';
const contact = {
  id: ID,
  name: 'Erika Muster',
  email: 'erika@example.test',
  phone: '+4930123456',
  sender_id: null,
  channel: 'manual',
  metadata: {},
  created_at: '2026-03-09T12:00:00.000Z',
  updated_at: '2026-03-09T12:00:00.000Z',
};
const conversation = {
  id: '6f1d2c3b-0000-4000-8000-0000000000d1',
  bot_id: '6f1d2c3b-0000-4000-8000-0000000000b1',
  bot_name: 'Studio-Bot',
  channel: 'email',
  sender_id: 'erika@example.test',
  status: 'ended',
  message_count: 4,
  last_message_at: '2026-03-10T12:00:00.000Z',
  created_at: '2026-03-10T11:00:00.000Z',
};

const { requests, bodies } = serveFakeApi((line) => {
  if (line === `GET /api/contacts/${ID}`) return json({ ...contact, email_bounced: null });
  if (line === `GET /api/contacts/${BOUNCED}`) {
    return json({
      ...contact,
      id: BOUNCED,
      email: 'paul@kunde.example',
      email_bounced: {
        address: 'paul@kunde.example',
        detail: 'smtp; 550 5.1.1 <paul@kunde.example>: Recipient address rejected: User unknown',
        at: '2026-03-11T09:30:00.000Z',
      },
    });
  }
  if (line === `GET /api/contacts/${ID}/conversations`) return json({ data: [conversation] });
  if (line === `POST /api/contacts/${ID}/merge`) {
    return json(
      {
        error: 'conflict',
        code: 'merge_booking_conflict',
        message: "Both contacts have a booking for 'Yoga'",
        details: { event_ids: [] },
      },
      409,
    );
  }
  if (line === 'GET /api/contacts') {
    return json({
      data: [contact, { ...contact, id: OTHER, name: 'Erika M.', email: null }],
      next_cursor: null,
    });
  }
  return json({ data: [], next_cursor: null });
});

const me = { permissions: ['contact:view', 'contact:edit'] };

describe('ContactPage', () => {
  it('shows the person with conversations across channels and refuses a merge clash in words', async () => {
    const { ContactPage } = await import('./ContactPage');
    renderWithApp(<ContactPage />, { me, path: '/contacts/:contactId', route: `/contacts/${ID}` });
    expect(await screen.findByText('+4930123456')).toBeTruthy();
    const conversations = await screen.findByTestId('contact-conversations');
    expect(await within(conversations).findByText('Studio-Bot')).toBeTruthy();
    expect(requests).toContain(`GET /api/contacts/${ID}/conversations`);

    await userEvent.click(screen.getByRole('button', { name: 'Zusammenführen' }));
    const select = await screen.findByRole('combobox', { name: 'Kontakt, der in diesen übergeht' });
    await waitFor(() => expect(within(select).getByRole('option', { name: /Erika M\./ })).toBeTruthy());
    await userEvent.selectOptions(select, OTHER);
    await userEvent.click(screen.getByRole('button', { name: 'In diesen Kontakt zusammenführen' }));
    await waitFor(() => expect(requests).toContain(`POST /api/contacts/${ID}/merge`));
    expect(bodies).toContainEqual({ contact_id: OTHER });
    expect(await screen.findByText(/Beide Kontakte haben eine Buchung/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Daten exportieren (JSON)' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Person löschen' })).toBeTruthy();
  });

  it('warns about an address whose replies bounced, with the date and the server words; none without a bounce', async () => {
    const { ContactPage } = await import('./ContactPage');
    const view = renderWithApp(<ContactPage />, {
      me,
      path: '/contacts/:contactId',
      route: `/contacts/${BOUNCED}`,
    });
    const alert = await screen.findByTestId('contact-bounced');
    expect(within(alert).getByText('Antwort unzustellbar')).toBeTruthy();
    expect(
      within(alert).getByText(/Die letzte Antwort an paul@kunde\.example kam am .*11\.03\.2026/),
    ).toBeTruthy();
    expect(within(alert).getByText(/Antwort des Empfangsservers: .*User unknown/)).toBeTruthy();
    view.unmount();

    renderWithApp(<ContactPage />, { me, path: '/contacts/:contactId', route: `/contacts/${ID}` });
    expect(await screen.findByText('+4930123456')).toBeTruthy();
    expect(screen.queryByTestId('contact-bounced')).toBeNull();
  });
});
