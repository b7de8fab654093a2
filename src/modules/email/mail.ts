/**
 * The minimal shape of a received e-mail that the pure e-mail modules read (robots, quotes,
 * threading). Connectors build it from what they have: mailparser's ParsedMail (its raw
 * `headerLines`), Microsoft Graph's `internetMessageHeaders`, or a provider webhook's fields.
 * No I/O here.
 */

export interface MailInput {
  /** Header values by lower-case name, unfolded; a header that occurs more than once keeps every value. */
  headers: Readonly<Record<string, readonly string[]>>;
  /** The sender's address (lower case), or null when there is none. */
  from: string | null;
  /**
   * Reply-To's first address (lower case) when the mail names one: a contact form's mail comes
   * from the website with the customer here, and the sender checks read this person.
   */
  replyTo?: string | null;
  /** Recipient addresses (To and Cc, lower case). */
  to: readonly string[];
  subject: string;
  /** The top-level media type with its parameters, e.g. `multipart/report; report-type=delivery-status`. */
  contentType: string;
  text: string;
  html?: string | null;
}

/** One header line as mailparser's `headerLines` holds it: `key` lower case, `line` the raw `Name: value`. */
export interface RawHeaderLine {
  key: string;
  line: string;
}

/** Unfolds a header value (CRLF + white space → one space) and trims it. */
export function unfold(value: string): string {
  return value.replace(/\r?\n[ \t]+/g, ' ').trim();
}

/** Header map from name/value pairs (Graph's `internetMessageHeaders`, a webhook's header list). */
export function headersFromPairs(
  pairs: Iterable<{ name: string; value: string }>,
): Record<string, readonly string[]> {
  const headers: Record<string, string[]> = {};
  for (const { name, value } of pairs) {
    const key = name.trim().toLowerCase();
    (headers[key] ??= []).push(unfold(value));
  }
  return headers;
}

/** Header map from mailparser's `headerLines`. */
export function headersFromLines(lines: Iterable<RawHeaderLine>): Record<string, readonly string[]> {
  const pairs: { name: string; value: string }[] = [];
  for (const { key, line } of lines) {
    const colon = line.indexOf(':');
    pairs.push({ name: key, value: colon < 0 ? '' : line.slice(colon + 1) });
  }
  return headersFromPairs(pairs);
}

/** Header map from a raw header block (the part of an RFC 5322 message before the first empty line). */
export function headersFromBlock(block: string): Record<string, readonly string[]> {
  const pairs: { name: string; value: string }[] = [];
  for (const line of block.replace(/\r\n/g, '\n').split('\n')) {
    if (/^[ \t]/.test(line) && pairs.length > 0) {
      pairs[pairs.length - 1]!.value += `\n${line}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon > 0) pairs.push({ name: line.slice(0, colon), value: line.slice(colon + 1) });
  }
  return headersFromPairs(pairs);
}

/** The first value of a header, or undefined. */
export function header(mail: Pick<MailInput, 'headers'>, name: string): string | undefined {
  return mail.headers[name.toLowerCase()]?.[0];
}

/** Every address (`local@domain`, lower case) found in an address header value. */
export function addressesIn(value: string | undefined): string[] {
  if (!value) return [];
  const found = value.match(/[^\s<>,;:"()[\]]+@[^\s<>,;:"()[\]]+/g) ?? [];
  return [...new Set(found.map((a) => a.toLowerCase().replace(/\.$/, '')))];
}

/** The message ids (`<…>`) in a header value, without angle brackets, in order, de-duplicated. */
export function messageIdsIn(value: string | undefined): string[] {
  if (!value) return [];
  const ids: string[] = [];
  for (const match of value.matchAll(/<([^<>\s]+)>/g)) {
    if (!ids.includes(match[1]!)) ids.push(match[1]!);
  }
  // A bare id without brackets (seen from a few clients).
  if (ids.length === 0 && /^[^\s<>]+@[^\s<>]+$/.test(value.trim())) ids.push(value.trim());
  return ids;
}

/**
 * A MailInput from the fields mailparser's ParsedMail has (typed structurally, so this module
 * needs no import of mailparser).
 */
export function mailFromParsed(parsed: {
  headerLines: readonly RawHeaderLine[];
  subject?: string;
  text?: string;
  html?: string | false;
}): MailInput {
  const headers = headersFromLines(parsed.headerLines);
  const first = (name: string) => headers[name]?.[0];
  return {
    headers,
    from: addressesIn(first('from'))[0] ?? null,
    replyTo: addressesIn(first('reply-to'))[0] ?? null,
    to: [...addressesIn((headers['to'] ?? []).join(',')), ...addressesIn((headers['cc'] ?? []).join(','))],
    subject: parsed.subject ?? first('subject') ?? '',
    contentType: first('content-type') ?? 'text/plain',
    text: parsed.text ?? '',
    html: parsed.html === false ? null : (parsed.html ?? null),
  };
}

/** Header map from a Map of header values (e.g. built from mailparser's `headerLines`), names any case. */
export function headersFromMap(
  map: ReadonlyMap<string, string | readonly string[]>,
): Record<string, readonly string[]> {
  const pairs: { name: string; value: string }[] = [];
  for (const [name, value] of map) {
    for (const v of typeof value === 'string' ? [value] : value) pairs.push({ name, value: v });
  }
  return headersFromPairs(pairs);
}
