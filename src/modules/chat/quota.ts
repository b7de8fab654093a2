/**
 * Quota arithmetic of the chat (pure). The monthly message quota is counted per calendar
 * month in UTC; usage_counters.period is the month's first day.
 */
export function quotaPeriod(now: Date = new Date()): string {
  const month = String(now.getUTCMonth() + 1).padStart(2, '0');
  return `${now.getUTCFullYear()}-${month}-01`;
}

/** Messages left after this one; null for unlimited plans. Never negative. */
export function quotaRemaining(quota: number | null, used: number): number | null {
  if (quota === null) return null;
  return Math.max(0, quota - used);
}
