/**
 * A bot's business hours: when people answer in the widget. Pure: the hours, a moment, and the
 * answer (open now, else when the next opening begins), in the hours' own time zone.
 */

export interface BusinessHours {
  /** IANA time zone, e.g. Europe/Berlin. */
  time_zone: string;
  /** Opening spans: day 1 (Monday) to 7 (Sunday), open and close as HH:MM (close after open). */
  hours: { day: number; open: string; close: string }[];
}

export interface Availability {
  /** Whether a person answers now. */
  open: boolean;
  /** When the next opening begins (ISO), or null when open now or never open. */
  next_open_at: string | null;
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Whether the time zone is one the runtime knows. */
export function validTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone }).format(0);
    return true;
  } catch {
    return false;
  }
}

/** The first problem of the hours (a sentence), or undefined when they are well-formed. */
export function hoursProblem(hours: BusinessHours): string | undefined {
  if (!validTimeZone(hours.time_zone)) return `'${hours.time_zone.slice(0, 60)}' is no known time zone`;
  for (const span of hours.hours) {
    if (minutesOf(span.close) <= minutesOf(span.open)) {
      return `The span ${span.open}–${span.close} of day ${span.day} must close after it opens`;
    }
  }
  return undefined;
}

interface LocalTime {
  year: number;
  month: number;
  day: number;
  /** 1 = Monday … 7 = Sunday */
  weekday: number;
  minutes: number;
}

const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

function localTime(at: Date, timeZone: string): LocalTime {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      weekday: 'short',
      hour: 'numeric',
      minute: 'numeric',
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    weekday: WEEKDAYS[parts.weekday!] ?? 1,
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

/** The instant of a local wall-clock time in the zone (the earlier one when a clock change repeats it). */
function instantOf(year: number, month: number, day: number, minutes: number, timeZone: string): Date {
  const wanted = Date.UTC(year, month - 1, day, Math.floor(minutes / 60), minutes % 60);
  let guess = wanted;
  for (let i = 0; i < 3; i++) {
    const seen = localTime(new Date(guess), timeZone);
    const seenUtc = Date.UTC(
      seen.year,
      seen.month - 1,
      seen.day,
      Math.floor(seen.minutes / 60),
      seen.minutes % 60,
    );
    const diff = wanted - seenUtc;
    if (diff === 0) break;
    guess += diff;
  }
  return new Date(guess);
}

/** Open now, or when the next span begins (looking a week and a day ahead). No hours: always open. */
export function availability(hours: BusinessHours | null | undefined, now: Date): Availability {
  if (!hours) return { open: true, next_open_at: null };
  if (hours.hours.length === 0) return { open: false, next_open_at: null };
  const local = localTime(now, hours.time_zone);
  const today = hours.hours.filter((s) => s.day === local.weekday);
  if (today.some((s) => minutesOf(s.open) <= local.minutes && local.minutes < minutesOf(s.close))) {
    return { open: true, next_open_at: null };
  }
  for (let offset = 0; offset <= 7; offset++) {
    const date = new Date(Date.UTC(local.year, local.month - 1, local.day + offset));
    const weekday = ((local.weekday - 1 + offset) % 7) + 1;
    const opens = hours.hours
      .filter((s) => s.day === weekday)
      .map((s) => minutesOf(s.open))
      .filter((m) => offset > 0 || m > local.minutes)
      .sort((a, b) => a - b);
    if (opens.length > 0) {
      const at = instantOf(
        date.getUTCFullYear(),
        date.getUTCMonth() + 1,
        date.getUTCDate(),
        opens[0]!,
        hours.time_zone,
      );
      return { open: false, next_open_at: at.toISOString() };
    }
  }
  return { open: false, next_open_at: null };
}
