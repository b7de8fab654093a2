/**
 * Opening hours of a hand-over: per weekday the spans in which a person answers the phone, in
 * the connection's time zone. Pure.
 */

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface OpeningHours {
  /** IANA time zone, e.g. Europe/Berlin. */
  timeZone: string;
  /** Per weekday its spans "HH:MM-HH:MM"; a day without spans is closed. */
  days: Partial<Record<Weekday, string[]>>;
}

const SPAN = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-4]):([0-5]\d)$/;

/** The weekday and minute of the day at `now` in the zone. */
function localTime(now: Date, timeZone: string): { day: Weekday; minute: number } {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(now);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const day = get('weekday').toLowerCase().slice(0, 3) as Weekday;
  return { day, minute: Number(get('hour')) * 60 + Number(get('minute')) };
}

/** Whether a person can be reached at `now`: always without opening hours. */
export function isOpen(hours: OpeningHours | null, now: Date): boolean {
  if (!hours) return true;
  const { day, minute } = localTime(now, hours.timeZone);
  return (hours.days[day] ?? []).some((span) => {
    const match = SPAN.exec(span.trim());
    if (!match) return false;
    const from = Number(match[1]) * 60 + Number(match[2]);
    const to = Number(match[3]) * 60 + Number(match[4]);
    return minute >= from && minute < to;
  });
}
