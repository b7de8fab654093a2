import { describe, expect, it } from 'vitest';
import { hoursBody, hoursValues, parseDay } from './hours-form';

describe('business hours in the form', () => {
  it.each([
    ['09:00–17:00', [{ open: '09:00', close: '17:00' }]],
    [
      '9:00-12:30, 13.30 - 18:00',
      [
        { open: '09:00', close: '12:30' },
        { open: '13:30', close: '18:00' },
      ],
    ],
    ['', []],
  ])('%j reads as spans', (text, spans) => expect(parseDay(text)).toEqual({ spans }));

  it.each([
    ['9 bis 17', 'format'],
    ['25:00–26:00', 'format'],
    ['17:00–09:00', 'order'],
    ['10:00–10:00', 'order'],
  ])('%j is refused (%s)', (text, problem) => expect(parseDay(text)).toEqual({ problem }));

  it('off is null; on gives each day its spans and round-trips', () => {
    const values = hoursValues(null, 'Europe/Berlin');
    expect(values.hours_on).toBe(false);
    expect(hoursBody(values)).toBeNull();
    const on = {
      ...values,
      hours_on: true,
      days: ['08:00–12:00, 13:00–16:00', '', '', '', '', '', '10:00–14:00'],
    };
    const body = hoursBody(on);
    expect(body).toEqual({
      time_zone: 'Europe/Berlin',
      hours: [
        { day: 1, open: '08:00', close: '12:00' },
        { day: 1, open: '13:00', close: '16:00' },
        { day: 7, open: '10:00', close: '14:00' },
      ],
    });
    expect(hoursValues(body, 'UTC')).toEqual(on);
  });
});
