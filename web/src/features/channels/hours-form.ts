import type { WidgetSettings } from './queries';

export type BusinessHours = NonNullable<WidgetSettings['business_hours']>;

/** Monday = 1 … Sunday = 7, as the API counts. */
export const DAYS = [1, 2, 3, 4, 5, 6, 7] as const;

/** The form's hours: on or off, the time zone and each day's spans as text ("09:00–12:00, 13:00–17:00"). */
export interface HoursValues {
  hours_on: boolean;
  time_zone: string;
  days: string[];
}

const SPAN = /^([01]?[0-9]|2[0-3])[:.]([0-5][0-9])\s*[-–]\s*([01]?[0-9]|2[0-3])[:.]([0-5][0-9])$/;
const pad = (h: string) => h.padStart(2, '0');

/** The form's values of saved hours (null: off, weekdays 09:00–17:00 offered). */
export function hoursValues(hours: BusinessHours | null, defaultZone: string): HoursValues {
  if (!hours) {
    return { hours_on: false, time_zone: defaultZone, days: DAYS.map((d) => (d <= 5 ? '09:00–17:00' : '')) };
  }
  return {
    hours_on: true,
    time_zone: hours.time_zone,
    days: DAYS.map((day) =>
      hours.hours
        .filter((s) => s.day === day)
        .sort((a, b) => a.open.localeCompare(b.open))
        .map((s) => `${s.open}–${s.close}`)
        .join(', '),
    ),
  };
}

/** One day's spans, or the reason they cannot be read ('format' or 'order'). */
export function parseDay(
  text: string,
): { spans: { open: string; close: string }[] } | { problem: 'format' | 'order' } {
  const spans: { open: string; close: string }[] = [];
  for (const part of text.split(/[,;]/).map((p) => p.trim())) {
    if (!part) continue;
    const m = SPAN.exec(part);
    if (!m) return { problem: 'format' };
    const open = `${pad(m[1]!)}:${m[2]}`;
    const close = `${pad(m[3]!)}:${m[4]}`;
    if (close <= open) return { problem: 'order' };
    spans.push({ open, close });
  }
  return { spans };
}

/** The API's business_hours of the form's values: null when off. */
export function hoursBody(values: HoursValues): BusinessHours | null {
  if (!values.hours_on) return null;
  return {
    time_zone: values.time_zone,
    hours: DAYS.flatMap((day, index) => {
      const parsed = parseDay(values.days[index] ?? '');
      return 'spans' in parsed ? parsed.spans.map((s) => ({ day, ...s })) : [];
    }),
  };
}
