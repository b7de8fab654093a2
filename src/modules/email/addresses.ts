/**
 * The people a reply goes to, decided from a received mail's address fields. Every address is
 * parsed with nodemailer's address parser (the one mailparser uses), so a sender field never
 * becomes a recipient list: From must be exactly one valid address, Reply-To's first address
 * replaces it, Cc entries are kept one by one (the mailbox's own addresses left out). A carriage
 * return or line feed anywhere refuses the mail. The result is structured `{name, address}`
 * for the transport, never a string it would parse again. No I/O.
 */
import addressparser from 'nodemailer/lib/addressparser';

export interface MailAddress {
  name: string;
  /** Lower case. */
  address: string;
}

/** Why no reply target could be taken from a mail (stored as the mail's skip reason). */
export type AddressRefusal = 'address_injection' | 'address_invalid' | 'address_too_long' | 'address_count';

export type AddressResult = { ok: true; address: MailAddress } | { ok: false; reason: AddressRefusal };

/** RFC 5321 4.5.3.1: local part at most 64 octets, a path (the address) at most 254 usable. */
export const MAX_LOCAL_PART = 64;
export const MAX_ADDRESS = 254;

/** A field as a connector has it: a header value, or the parts a provider gives separately. */
export type AddressField = string | { name?: string | null; address?: string | null };

const LINE_BREAK = /[\r\n\u2028\u2029\u0085]/;
/** Any control character (C0 or DEL). */
const hasControl = (value: string) =>
  [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
/** A plain addr-spec: no white space, no list or group separators, no quoting tricks. */
const ADDR_SPEC =
  /^[^\s@<>(),;:"[\]\\]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

function hasBreak(field: AddressField | null | undefined): boolean {
  if (field === null || field === undefined) return false;
  if (typeof field === 'string') return LINE_BREAK.test(field);
  return LINE_BREAK.test(field.name ?? '') || LINE_BREAK.test(field.address ?? '');
}

/** One parsed address checked: syntax and the RFC 5321 limits. */
function checkOne(name: string, address: string): AddressResult {
  const bare = address.trim().toLowerCase();
  if (hasControl(bare) || hasControl(name)) return { ok: false, reason: 'address_injection' };
  const at = bare.lastIndexOf('@');
  if (at > MAX_LOCAL_PART || bare.length > MAX_ADDRESS) return { ok: false, reason: 'address_too_long' };
  if (!ADDR_SPEC.test(bare)) return { ok: false, reason: 'address_invalid' };
  return { ok: true, address: { name: name.replace(/\s+/g, ' ').trim().slice(0, 200), address: bare } };
}

/** The entries of a field, parsed (groups flattened, `;` lists read as lists). */
function entries(field: AddressField): { name: string; address: string }[] {
  const text =
    typeof field === 'string'
      ? field
      : field.name
        ? `"${field.name.replace(/["\\]/g, '')}" <${field.address ?? ''}>`
        : (field.address ?? '');
  if (!text.trim()) return [];
  // A structured field whose address is itself a list ("a@x, b@y") parses as several entries.
  if (typeof field !== 'string' && /[,;:<>]/.test(field.address ?? '')) {
    return addressparser(field.address ?? '', { flatten: true }).map((e) => ({
      name: e.name ?? '',
      address: e.address ?? '',
    }));
  }
  return addressparser(text, { flatten: true }).map((e) => ({
    name: e.name ?? '',
    address: e.address ?? '',
  }));
}

function sameAddress(a: { address: string }, b: { address: string }): boolean {
  return a.address.trim().toLowerCase() === b.address.trim().toLowerCase();
}

function allEntries(fields: readonly AddressField[]): { name: string; address: string }[] {
  return fields.flatMap((field) => entries(field));
}

/**
 * Exactly one valid address from a header's fields (From): a list, a group, a `;` list or a
 * line break refuses; no address at all is null.
 */
export function exactlyOne(fields: readonly AddressField[]): AddressResult | null {
  if (fields.some(hasBreak)) return { ok: false, reason: 'address_injection' };
  const all = allEntries(fields);
  // The same address given twice (a provider's structured and plain field) is one address.
  const found = all.filter((e, i) => all.findIndex((o) => sameAddress(o, e)) === i);
  if (found.length === 0) return null;
  if (found.length > 1) return { ok: false, reason: 'address_count' };
  return checkOne(found[0]!.name, found[0]!.address);
}

/** The first address of a list header (Reply-To); a line break anywhere in it refuses. */
export function firstOf(fields: readonly AddressField[]): AddressResult | null {
  if (fields.some(hasBreak)) return { ok: false, reason: 'address_injection' };
  const found = allEntries(fields);
  if (found.length === 0) return null;
  return checkOne(found[0]!.name, found[0]!.address);
}

/** Every valid address of list headers (Cc); invalid entries are left out, a line break refuses. */
export function everyOf(
  fields: readonly AddressField[],
): { ok: true; addresses: MailAddress[] } | { ok: false; reason: AddressRefusal } {
  if (fields.some(hasBreak)) return { ok: false, reason: 'address_injection' };
  const addresses: MailAddress[] = [];
  for (const e of allEntries(fields)) {
    const one = checkOne(e.name, e.address);
    if (one.ok && !addresses.some((a) => a.address === one.address.address)) addresses.push(one.address);
  }
  return { ok: true, addresses };
}

/** A mail's address headers, each as the entries a connector has (header values or structured ones). */
export interface AddressFields {
  from: readonly AddressField[];
  replyTo?: readonly AddressField[];
  cc?: readonly AddressField[];
}

export type ReplyTargets =
  | {
      ok: true;
      /** The sender as written (From), for the robot checks. */
      from: MailAddress;
      /** Who the reply goes to: Reply-To's first address, or From. */
      to: MailAddress;
      /** Kept on the reply (reply to all): the customer's Cc without our own addresses. */
      cc: MailAddress[];
      replyTo: MailAddress | null;
    }
  | { ok: false; reason: AddressRefusal | 'no_sender' };

/** Most recipients a reply keeps in Cc. */
export const MAX_CC = 20;

/**
 * Who a reply goes to. `own`: the mailbox's address and aliases (never put in Cc); `replyAll`:
 * the mailbox's setting "reply to all" (the customer's Cc stays on the reply).
 */
export function replyTargets(
  fields: AddressFields,
  options: { own: readonly string[]; replyAll: boolean },
): ReplyTargets {
  const from = exactlyOne(fields.from);
  if (from && !from.ok) return { ok: false, reason: from.reason };
  const first = firstOf(fields.replyTo ?? []);
  if (first && !first.ok) return { ok: false, reason: first.reason };
  const replyTo = first?.address ?? null;
  const cc = everyOf(fields.cc ?? []);
  if (!cc.ok) return { ok: false, reason: cc.reason };
  if (!from && !replyTo) return { ok: false, reason: 'no_sender' };
  const sender = from?.address ?? replyTo!;
  const to = replyTo ?? sender;
  const own = new Set(options.own.map((a) => a.toLowerCase()));
  const kept = options.replyAll
    ? cc.addresses.filter((a) => !own.has(a.address) && a.address !== to.address).slice(0, MAX_CC)
    : [];
  return { ok: true, from: sender, to, cc: kept, replyTo };
}
