import { describe, expect, it } from 'vitest';
import {
  assertTimeZone,
  calendarDate,
  daysBetween,
  reminderTypeFor,
} from '../../src/modules/reminders/calendar.js';

describe('calendarDate', () => {
  it.each([
    ['2026-03-10T22:30:00Z', 'Europe/Berlin', '2026-03-10'],
    ['2026-03-10T23:30:00Z', 'Europe/Berlin', '2026-03-11'],
    ['2026-07-10T22:30:00Z', 'Europe/Berlin', '2026-07-11'],
    ['2026-03-10T23:30:00Z', 'UTC', '2026-03-10'],
    ['2026-03-10T03:00:00Z', 'America/New_York', '2026-03-09'],
  ])('%s in %s is %s', (instant, zone, date) => {
    expect(calendarDate(new Date(instant), zone)).toBe(date);
  });
});

describe('daysBetween', () => {
  it.each([
    ['2026-03-10', '2026-03-17', 7],
    ['2026-03-25', '2026-04-01', 7],
    ['2026-10-22', '2026-10-29', 7],
    ['2026-12-30', '2027-01-02', 3],
    ['2026-03-10', '2026-03-10', 0],
    ['2026-03-10', '2026-03-09', -1],
  ])('%s → %s is %i days', (from, to, days) => {
    expect(daysBetween(from, to)).toBe(days);
  });
});

describe('reminderTypeFor', () => {
  it.each([
    [9, undefined],
    [8, undefined],
    [7, '7d'],
    [6, '7d'],
    [5, '7d'],
    [4, '7d'],
    [3, '3d'],
    [2, '3d'],
    [1, '1d'],
    [0, undefined],
    [-1, undefined],
  ])('%i days remaining → %s', (days, type) => {
    expect(reminderTypeFor(days)?.type).toBe(type);
  });

  it('names the template of each type', () => {
    expect(reminderTypeFor(7)?.template).toBe('svc_trial_reminder_7d');
    expect(reminderTypeFor(3)?.template).toBe('svc_trial_reminder_3d');
    expect(reminderTypeFor(1)?.template).toBe('svc_trial_reminder_1d');
  });
});

describe('assertTimeZone', () => {
  it('accepts IANA zones and refuses others', () => {
    expect(() => assertTimeZone('Europe/Berlin')).not.toThrow();
    expect(() => assertTimeZone('UTC')).not.toThrow();
    expect(() => assertTimeZone('Mars/Olympus_Mons')).toThrow(/REMINDER_TIME_ZONE/);
  });
});
