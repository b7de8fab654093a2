/** Dates, numbers and money in the user's language, through Intl. */
export function locale(language: string): string {
  return language === 'en' ? 'en-GB' : 'de-DE';
}

/** The calendar day of a date as the API takes it: YYYY-MM-DD. */
export function isoDay(value: string | Date | null | undefined): string | null {
  if (!value) return null;
  return typeof value === 'string' ? value.slice(0, 10) : value.toISOString().slice(0, 10);
}

export function formatDate(value: string | null | undefined, language: string): string {
  if (!value) return '—';
  const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00`) : new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return new Intl.DateTimeFormat(locale(language), { dateStyle: 'medium' }).format(date);
}

export function formatDateTime(value: string | null | undefined, language: string): string {
  if (!value) return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return new Intl.DateTimeFormat(locale(language), { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}

export function formatNumber(value: number, language: string): string {
  return new Intl.NumberFormat(locale(language)).format(value);
}

export function formatMoney(value: number, currency: string, language: string): string {
  try {
    return new Intl.NumberFormat(locale(language), { style: 'currency', currency }).format(value);
  } catch {
    return `${formatNumber(value, language)} ${currency}`;
  }
}

export function formatScore(value: number, language: string): string {
  return new Intl.NumberFormat(locale(language), {
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  }).format(value);
}
