import { badRequest } from '../../http/errors.js';

/**
 * The usage month: a calendar month in UTC, the same period the quota counter uses
 * (usage_counters.period is its first day). Pure: no I/O.
 */
export interface UsageMonth {
  /** 'YYYY-MM' */
  month: string;
  /** First day, 'YYYY-MM-DD' (the usage_counters period). */
  firstDay: string;
  /** Last day, 'YYYY-MM-DD'. */
  lastDay: string;
  start: Date;
  /** Start of the following month (exclusive end). */
  end: Date;
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

const day = (date: Date) => date.toISOString().slice(0, 10);

export function usageMonth(value: string | undefined, now: Date = new Date()): UsageMonth {
  let year = now.getUTCFullYear();
  let monthIndex = now.getUTCMonth();
  if (value !== undefined) {
    const match = MONTH.exec(value);
    if (!match)
      throw badRequest("Field 'month' must be a month in the form YYYY-MM", {
        code: 'month_format',
        field: 'month',
      });
    year = Number(match[1]);
    monthIndex = Number(match[2]) - 1;
  }
  const start = new Date(Date.UTC(year, monthIndex, 1));
  const end = new Date(Date.UTC(year, monthIndex + 1, 1));
  return {
    month: day(start).slice(0, 7),
    firstDay: day(start),
    lastDay: day(new Date(end.getTime() - 86_400_000)),
    start,
    end,
  };
}

/** Every day of the month, in order. */
export function daysOf(period: UsageMonth): string[] {
  const days: string[] = [];
  for (let t = period.start.getTime(); t < period.end.getTime(); t += 86_400_000) days.push(day(new Date(t)));
  return days;
}

/** Messages left this month; null when the plan has no quota (unlimited). Never negative. */
export function messagesRemaining(quota: number | null, used: number): number | null {
  return quota === null ? null : Math.max(0, quota - used);
}
