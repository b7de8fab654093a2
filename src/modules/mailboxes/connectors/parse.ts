import { createHash } from 'node:crypto';
import { simpleParser } from 'mailparser';
import type { InboundMail } from './inbound.js';

/** Largest raw mail that is read (bigger ones are stored as skipped). */
export const MAX_RAW_BYTES = 10 * 1024 * 1024;

function ids(value: string | string[] | undefined): string[] {
  const all = Array.isArray(value) ? value : value ? [value] : [];
  return all.flatMap(
    (v) => v.match(/<[^<>\s]+>/g) ?? (v.trim() ? [`<${v.trim().replace(/^<|>$/g, '')}>`] : []),
  );
}

/** A raw RFC 5322 mail as an arrived mail: headers as sent, plain text (from HTML when that is all). */
export async function parseRawMail(raw: Buffer): Promise<InboundMail> {
  const parsed = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true });
  const headers = new Map<string, string>();
  for (const { key, line } of parsed.headerLines) {
    const value = line.slice(line.indexOf(':') + 1).trim();
    if (!headers.has(key)) headers.set(key, value);
  }
  const messageId =
    ids(parsed.messageId)[0] ??
    `<${createHash('sha256').update(raw).digest('hex').slice(0, 32)}@no-message-id.invalid>`;
  const text = parsed.text ?? (typeof parsed.html === 'string' ? parsed.html.replace(/<[^>]+>/g, ' ') : '');
  return {
    messageId,
    from: parsed.from?.value[0]?.address?.toLowerCase() ?? null,
    subject: parsed.subject ?? null,
    inReplyTo: ids(parsed.inReplyTo)[0] ?? null,
    references: ids(parsed.references),
    text,
    headers,
    contentType: (headers.get('content-type') ?? 'text/plain').split(';')[0]!.trim(),
  };
}
