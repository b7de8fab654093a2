import { parsePhoneNumberFromString } from 'libphonenumber-js';

/** Numbers written without a country code are read as numbers of this country. */
export const DEFAULT_PHONE_REGION = 'DE';

/**
 * A phone number in E.164 (`+4930123456`), or null when the text is no possible phone number.
 * `00` before the country code counts as `+`.
 */
export function normalizePhone(text: string, region = DEFAULT_PHONE_REGION): string | null {
  const trimmed = text.trim().replace(/^00(?=[1-9])/, '+');
  if (!/^\+?[0-9 ()./-]+$/.test(trimmed)) return null;
  const parsed = parsePhoneNumberFromString(
    trimmed,
    region as Parameters<typeof parsePhoneNumberFromString>[1],
  );
  if (!parsed || !parsed.isPossible()) return null;
  return parsed.number;
}

/** The key an e-mail address is unique by within a tenant (the migration's trigger computes the same). */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

/** An e-mail address as a chat sender_id may carry it (the e-mail channel). */
export function looksLikeEmail(text: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text.trim());
}
