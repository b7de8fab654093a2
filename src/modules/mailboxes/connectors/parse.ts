import { createHash } from 'node:crypto';
import { simpleParser, type AddressObject } from 'mailparser';
import { mailFromParsed } from '../../email/index.js';
import type { InboundAttachment, InboundMail } from './inbound.js';

/** Largest raw mail that is read (bigger ones are stored as skipped). */
export const MAX_RAW_BYTES = 10 * 1024 * 1024;

function ids(value: string | string[] | undefined): string[] {
  const all = Array.isArray(value) ? value : value ? [value] : [];
  return all.flatMap(
    (v) => v.match(/<[^<>\s]+>/g) ?? (v.trim() ? [`<${v.trim().replace(/^<|>$/g, '')}>`] : []),
  );
}

/** The entries of an address header as mailparser parsed them (groups flattened). */
function entriesOf(value: AddressObject | AddressObject[] | undefined): { name: string; address: string }[] {
  const objects = Array.isArray(value) ? value : value ? [value] : [];
  const flat = (
    list: { name?: string; address?: string; group?: unknown[] }[],
  ): { name: string; address: string }[] =>
    list.flatMap((e) =>
      e.group ? flat(e.group as typeof list) : [{ name: e.name ?? '', address: e.address ?? '' }],
    );
  return objects.flatMap((o) => flat(o.value));
}

/** A raw RFC 5322 mail as an arrived mail: headers as sent, plain text and HTML, attachments. */
export async function parseRawMail(raw: Buffer): Promise<InboundMail> {
  const parsed = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true });
  const input = mailFromParsed(parsed);
  const messageId =
    ids(parsed.messageId)[0] ??
    `<${createHash('sha256').update(raw).digest('hex').slice(0, 32)}@no-message-id.invalid>`;
  const html = typeof parsed.html === 'string' ? parsed.html : null;
  const attachments: InboundAttachment[] = (parsed.attachments ?? [])
    .filter((a) => a.contentDisposition !== 'inline' || !a.related)
    .map((a) => ({
      filename: a.filename ?? null,
      contentType: (a.contentType ?? 'application/octet-stream').toLowerCase(),
      size: a.size ?? a.content.length,
      content: a.content,
    }));
  return {
    messageId,
    from: parsed.from?.value[0]?.address?.toLowerCase() ?? input.from,
    to: [...input.to],
    subject: parsed.subject ?? null,
    inReplyTo: ids(parsed.inReplyTo)[0] ?? null,
    references: ids(parsed.references),
    text: parsed.text ?? (html ? html.replace(/<[^>]+>/g, ' ') : ''),
    html,
    headers: input.headers,
    contentType: input.contentType,
    attachments,
    addresses: {
      from: entriesOf(parsed.from),
      replyTo: entriesOf(parsed.replyTo),
      cc: entriesOf(parsed.cc),
    },
    raw,
  };
}
