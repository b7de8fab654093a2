import { Type, type TSchema } from '@sinclair/typebox';
import { badRequest } from '../http/errors.js';

/**
 * Keyset ("cursor") pagination. A cursor names the last row of a page by its sort key, so a
 * row inserted while a client pages through a list can never shift later pages: no row is
 * returned twice and none is skipped. The cursor is opaque to clients (base64url JSON) and
 * carries the list it belongs to, so a cursor of one list is refused by another.
 */

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export const PageQuery = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: DEFAULT_PAGE_SIZE,
      description: `Page size, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})`,
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 500,
      description: 'Opaque cursor: the next_cursor of the previous page',
    }),
  ),
};

/** The response of every list: one page of items and the cursor of the next page. */
export function Page<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    next_cursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Cursor for the next page; null on the last page',
    }),
  });
}

/** A list page that also counts every row matching the filters (where a UI shows the number). */
export function CountedPage<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    next_cursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Cursor for the next page; null on the last page',
    }),
    total: Type.Integer({ minimum: 0, description: 'Rows matching the filters, over all pages' }),
  });
}

/**
 * Position after a row sorted newest first by (created_at, id). `at` is the timestamp as
 * PostgreSQL text with microseconds: a JavaScript Date keeps only milliseconds, and rows
 * created within the same millisecond would otherwise be skipped or repeated.
 */
export interface TimeCursor {
  at: string;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

function encode(list: string, position: unknown): string {
  return Buffer.from(JSON.stringify({ l: list, p: position }), 'utf8').toString('base64url');
}

function decode(list: string, cursor: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (typeof parsed !== 'object' || parsed === null || (parsed as { l?: unknown }).l !== list) {
    throw invalidCursor();
  }
  return (parsed as { p?: unknown }).p;
}

function invalidCursor() {
  return badRequest("Field 'cursor' is not a cursor of this list; start again without it", {
    code: 'cursor_invalid',
    field: 'cursor',
  });
}

export function encodeTimeCursor(list: string, position: TimeCursor): string {
  return encode(list, [position.at, position.id]);
}

export function decodeTimeCursor(list: string, cursor: string | undefined): TimeCursor | undefined {
  if (cursor === undefined) return undefined;
  const position = decode(list, cursor);
  if (
    !Array.isArray(position) ||
    position.length !== 2 ||
    typeof position[0] !== 'string' ||
    typeof position[1] !== 'string' ||
    !TIMESTAMP.test(position[0]) ||
    !UUID.test(position[1])
  ) {
    throw invalidCursor();
  }
  return { at: position[0], id: position[1] };
}

/** Position after a row of a list sorted by an ascending integer sequence. */
export function encodeSeqCursor(list: string, seq: number): string {
  return encode(list, seq);
}

export function decodeSeqCursor(list: string, cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  const position = decode(list, cursor);
  if (typeof position !== 'number' || !Number.isSafeInteger(position) || position < 0) throw invalidCursor();
  return position;
}

/**
 * Repositories fetch one row more than the page size; its presence says that another page
 * exists, without a separate count query.
 */
export function splitPage<T>(rows: T[], limit: number, cursorOf: (last: T) => string) {
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  const next_cursor = rows.length > limit && last !== undefined ? cursorOf(last) : null;
  return { data, next_cursor };
}

/** SQL text of a timestamptz in UTC with microseconds, matching TimeCursor.at. */
export function cursorTimestampSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}
