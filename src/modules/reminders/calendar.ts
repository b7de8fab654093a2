/**
 * Calendar arithmetic for the trial reminders, pure. Days are calendar days in the configured
 * time zone (default Europe/Berlin): a trial ending on Friday at 09:00 has 7 days remaining
 * on the Friday before, whatever the hour of the call.
 */
export function assertTimeZone(timeZone: string): void {
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone });
  } catch {
    throw new Error(`REMINDER_TIME_ZONE must be an IANA time zone such as Europe/Berlin, got "${timeZone}"`);
  }
}

/** The calendar date ('YYYY-MM-DD') of an instant in a time zone. */
export function calendarDate(instant: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(instant);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** Whole calendar days from date `from` to date `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86400_000);
}

export interface ReminderType {
  type: string;
  template: string;
  /** The reminder is due while days_remaining lies in [minDays, maxDays]. */
  maxDays: number;
  minDays: number;
}

/**
 * The reminder types, in the order of the response. Each is due on its day and, when that day
 * was missed (the workflow did not run), on the following days until the next type's window
 * begins: a tenant whose 7-day day was missed gets the 7d reminder at 6, 5 or 4 days; from
 * 3 days on, only the 3d reminder is due and the 7d one is never sent.
 */
export const REMINDER_TYPES: readonly ReminderType[] = [
  { type: '7d', template: 'svc_trial_reminder_7d', maxDays: 7, minDays: 4 },
  { type: '3d', template: 'svc_trial_reminder_3d', maxDays: 3, minDays: 2 },
  { type: '1d', template: 'svc_trial_reminder_1d', maxDays: 1, minDays: 1 },
];

/** The reminder type due at `daysRemaining`, or undefined (more than 7 days, or the last day). */
export function reminderTypeFor(daysRemaining: number): ReminderType | undefined {
  return REMINDER_TYPES.find((r) => daysRemaining <= r.maxDays && daysRemaining >= r.minDays);
}
