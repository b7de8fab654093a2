import { badRequest } from '../../http/errors.js';

/**
 * The `from`/`to` filters of the conversation lists. Each takes an ISO 8601 date
 * (`2026-05-01`, a whole UTC day) or a date-time with a zone (`2026-05-01T08:00:00Z`,
 * `…+02:00`). `from` is inclusive. A date-only `to` includes that whole day; a date-time `to`
 * includes that instant. Pure: no I/O.
 */
export interface CreatedRange {
  /** created_at >= from */
  from?: Date;
  /** created_at < before (date-only `to`: the start of the next day) */
  before?: Date;
  /** created_at <= until (date-time `to`) */
  until?: Date;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;
const DAY_MS = 86_400_000;

interface Bound {
  instant: Date;
  dateOnly: boolean;
}

function parseBound(field: 'from' | 'to', value: string): Bound {
  const dateOnly = DATE_ONLY.exec(value);
  const dateTime = dateOnly ? null : DATE_TIME.exec(value);
  const parts = dateOnly ?? dateTime;
  const instant = parts ? new Date(dateOnly ? `${value}T00:00:00Z` : value) : undefined;
  // Date() rolls 2026-02-30 over into March; a real calendar date survives the round trip.
  const [, year, month, day] = parts ?? [];
  const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  const realDay =
    calendar.getUTCFullYear() === Number(year) &&
    calendar.getUTCMonth() === Number(month) - 1 &&
    calendar.getUTCDate() === Number(day);
  if (!instant || Number.isNaN(instant.getTime()) || !realDay) {
    throw badRequest(
      `Field '${field}' must be an ISO 8601 date (2026-05-01) or date-time with zone (2026-05-01T08:00:00Z)`,
      { code: 'field_format', field, format: 'date' },
    );
  }
  return { instant, dateOnly: dateOnly !== null };
}

export function parseCreatedRange(from: string | undefined, to: string | undefined): CreatedRange {
  const range: CreatedRange = {};
  const start = from === undefined ? undefined : parseBound('from', from);
  const end = to === undefined ? undefined : parseBound('to', to);
  if (start) range.from = start.instant;
  if (end?.dateOnly) range.before = new Date(end.instant.getTime() + DAY_MS);
  else if (end) range.until = end.instant;
  if (start && end) {
    const endsBeforeStart = end.dateOnly
      ? range.before!.getTime() <= start.instant.getTime()
      : end.instant.getTime() < start.instant.getTime();
    if (endsBeforeStart)
      throw badRequest("Field 'to' must not lie before 'from'", { code: 'date_range_order', field: 'to' });
  }
  return range;
}
