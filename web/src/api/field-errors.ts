import { ApiError } from './client';

/**
 * The form field an API refusal names: validation messages read "Field 'body.title' …",
 * "Field 'price' …" or "Field 'items.0.title' is required in body"; the first segment after
 * `body.` is the form field. Null when the message names no field.
 */
export function fieldOfMessage(message: string): string | null {
  const match = /Field '(?:body\.)?([A-Za-z_][\w]*)/.exec(message);
  return match ? match[1]! : null;
}

/**
 * Places a refusal that names a field (400 validation, 409 rule such as a capacity below the
 * places booked) at that field when the form has it; returns true when it did, so the caller
 * shows other errors above the form instead.
 */
export function placeFieldError(
  error: unknown,
  fields: readonly string[],
  setFieldError: (field: string, message: string) => void,
): boolean {
  if (!(error instanceof ApiError) || (error.status !== 400 && error.status !== 409)) return false;
  const field = fieldOfMessage(error.message);
  if (!field || !fields.includes(field)) return false;
  setFieldError(field, error.message);
  return true;
}
