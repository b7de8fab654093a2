import { ApiError } from './client';

/**
 * Places a refusal that names a field (details.field of a 400 validation or a 409 rule such
 * as a capacity below the places booked) at that field when the form has it, in the user's
 * language; returns true when it did, so the caller shows other errors above the form instead.
 */
export function placeFieldError(
  error: unknown,
  fields: readonly string[],
  setFieldError: (field: string, message: string) => void,
): boolean {
  if (!(error instanceof ApiError) || (error.status !== 400 && error.status !== 409)) return false;
  const field = error.field;
  if (!field || !fields.includes(field)) return false;
  setFieldError(field, error.message);
  return true;
}

/**
 * The text of a refusal that names one of these fields (for a field whose error is shown by
 * its own state rather than a form library), or null when the refusal belongs elsewhere.
 */
export function fieldErrorOf(error: unknown, fields: readonly string[]): string | null {
  let text: string | null = null;
  placeFieldError(error, fields, (_field, message) => {
    text = message;
  });
  return text;
}
