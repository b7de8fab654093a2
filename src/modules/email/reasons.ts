/**
 * Every reason a received mail is stored without an answer: the robot and loop-guard reasons of
 * robots.ts and those the inbound path adds (empty text, a handed-over conversation, an
 * exhausted quota, a mail too large to read). Reasons stored under earlier names stay readable:
 * `canonicalSkipReason` maps them to today's codes. No I/O.
 */
import { SKIP_REASONS } from './robots.js';

export const MAIL_SKIP_REASONS = {
  ...SKIP_REASONS,
  empty_text: {
    de: 'Kein eigener Text (nur Zitat oder Signatur)',
    en: 'No text of its own (only a quote or signature)',
  },
  handed_over: {
    de: 'Das Gespräch wurde an einen Menschen übergeben',
    en: 'The conversation was handed over to a person',
  },
  bot_disabled: {
    de: 'Der Bot ist ausgeschaltet',
    en: 'The bot is switched off',
  },
  quota_exhausted: {
    de: 'Das Kontingent ist aufgebraucht',
    en: 'The quota is used up',
  },
  address_injection: {
    de: 'Zeilenumbruch in einem Adressfeld (versuchte Header-Injection)',
    en: 'Line break in an address field (attempted header injection)',
  },
  address_count: {
    de: 'Mehr als eine Adresse im Absenderfeld',
    en: 'More than one address in the sender field',
  },
  address_invalid: {
    de: 'Die Absenderadresse ist ungültig',
    en: 'The sender address is not valid',
  },
  address_too_long: {
    de: 'Die Absenderadresse ist länger als erlaubt (RFC 5321: 64 Zeichen vor dem @, 254 insgesamt)',
    en: 'The sender address is longer than allowed (RFC 5321: 64 characters before the @, 254 in all)',
  },
  too_large: {
    de: 'Die Mail ist zu groß, um gelesen zu werden',
    en: 'The mail is too large to be read',
  },
} as const satisfies Record<string, { de: string; en: string }>;

export type MailSkipReason = keyof typeof MAIL_SKIP_REASONS;

/** Codes stored by earlier versions and the code that replaced each. */
export const LEGACY_SKIP_REASONS: Readonly<Record<string, MailSkipReason>> = {
  auto_reply_header: 'autoreply_header',
  precedence_bulk: 'precedence',
  bounce: 'delivery_report',
  repeated_text: 'duplicate_body',
  sender_hourly_cap: 'hourly_cap',
  sender_daily_cap: 'daily_cap',
};

/** Today's code for a stored reason (an earlier name mapped), or null for one without a text (an error). */
export function canonicalSkipReason(stored: string | null | undefined): MailSkipReason | null {
  if (!stored) return null;
  if (stored in MAIL_SKIP_REASONS) return stored as MailSkipReason;
  return LEGACY_SKIP_REASONS[stored] ?? null;
}

/** The words for a stored reason in German or English; an unknown reason (an error text) as stored. */
export function mailSkipReasonText(stored: string, language: string = 'de'): string {
  const code = canonicalSkipReason(stored);
  if (!code) return stored;
  return MAIL_SKIP_REASONS[code][language.toLowerCase().startsWith('en') ? 'en' : 'de'];
}
