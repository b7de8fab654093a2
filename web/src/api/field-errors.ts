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
