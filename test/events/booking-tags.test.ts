import { describe, expect, it } from 'vitest';
import {
  bookableEventsSection,
  bookingChannelOf,
  parseBookingTags,
  stripBookingTags,
} from '../../src/modules/events/bookings/tags.js';

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';

describe('booking tags', () => {
  it.each([
    ['Gern! [BOOK:' + A + ']', [{ kind: 'BOOK', eventId: A }]],
    [`[waitlist: ${B} ]`, [{ kind: 'WAITLIST', eventId: B }]],
    [
      `[BOOK:${A}] und [WAITLIST:${B}]`,
      [
        { kind: 'BOOK', eventId: A },
        { kind: 'WAITLIST', eventId: B },
      ],
    ],
    [`[BOOK:${A}] nochmal [BOOK:${A.toUpperCase()}]`, [{ kind: 'BOOK', eventId: A }]],
    ['[BOOK:nicht-eine-id]', [{ kind: 'BOOK', eventId: 'nicht-eine-id' }]],
    ['Kein Tag hier, nur [LIST:Kurse]', []],
    ['[BOOKING:x] [BOOK x]', []],
  ])('%s → %o', (reply, tags) => {
    expect(parseBookingTags(reply)).toEqual(tags);
  });

  it.each([
    [`Ich buche den Kurs für Sie. [BOOK:${A}]`, 'Ich buche den Kurs für Sie.'],
    [`Erledigt [BOOK:${A}] !`, 'Erledigt!'],
    [`Zeile eins\n[WAITLIST:${B}]\n\n\nZeile zwei`, 'Zeile eins\n\nZeile zwei'],
    ['Ohne Tag.', 'Ohne Tag.'],
  ])('strips tags from %j', (reply, expected) => {
    expect(stripBookingTags(reply)).toBe(expected);
  });

  it.each([
    ['email', 'email'],
    ['api', 'api'],
    ['webhook', 'api'],
  ] as const)('chat channel %s books via %s', (chat, booking) => {
    expect(bookingChannelOf(chat)).toBe(booking);
  });

  it('offers each event with its tag: BOOK while places are free, WAITLIST when full', () => {
    const base = {
      event_time_start: '18:30:00',
      location: 'Studio',
      currency: 'EUR',
      capacity_total: 10,
    };
    const text = bookableEventsSection([
      {
        ...base,
        id: A,
        title: 'Yoga',
        event_date: '2030-01-02',
        price: 0,
        payment_model: 'free',
        capacity_booked: 3,
        status: 'selling',
      },
      {
        ...base,
        id: B,
        title: 'Pilates',
        event_date: '2030-01-03',
        price: 12.5,
        payment_model: 'full_payment',
        capacity_booked: 10,
        status: 'waitlist',
      },
    ]);
    expect(text).toContain(`- Yoga (2030-01-02 18:30, Studio; kostenlos; 7 Plätze frei – Tag [BOOK:${A}])`);
    expect(text).toContain(
      `- Pilates (2030-01-03 18:30, Studio; 12.50 EUR; ausgebucht, Warteliste – Tag [WAITLIST:${B}])`,
    );
    expect(text).toContain('[BOOK:<event_id>]');
  });
});
