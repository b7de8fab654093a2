/**
 * A mail rebuilt as MIME for download, when the provider did not hand over the original:
 * Postmark without "Include raw email content", Graph when `$value` could not be read. The
 * addresses, subject, date, Message-ID, In-Reply-To and References are the mail's own, every
 * other header the provider gave is kept as it came, the text and HTML parts and the
 * attachments (with their content when the provider sent it) are composed by nodemailer's
 * MailComposer. `X-Parley-Rebuilt` names where the parts came from, so a reader knows it is
 * not the bytes the sender's server delivered.
 */
import MailComposer from 'nodemailer/lib/mail-composer';

export const REBUILT_HEADER = 'X-Parley-Rebuilt';

/** Headers the composer writes from the parts itself (or that describe the old structure). */
const COMPOSED = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'reply-to',
  'subject',
  'date',
  'message-id',
  'in-reply-to',
  'references',
  'content-type',
  'content-transfer-encoding',
  'mime-version',
  REBUILT_HEADER.toLowerCase(),
]);

type Address = { name: string; address: string };

export interface MimeParts {
  /** Where the parts came from, e.g. `postmark-json` or `graph-json`. */
  source: string;
  from: Address[];
  to: Address[];
  cc: Address[];
  replyTo: Address[];
  subject: string | null;
  /** The date as the provider gave it; the current time when missing or unreadable. */
  date: string | null;
  messageId: string;
  inReplyTo: string | null;
  references: string[];
  headers: Array<{ name: string; value: string }>;
  text: string | null;
  html: string | null;
  attachments: Array<{ filename: string | null; contentType: string; content: Buffer }>;
}

export async function rebuildMime(parts: MimeParts): Promise<Buffer> {
  const date = parts.date ? new Date(parts.date) : new Date();
  const composer = new MailComposer({
    from: parts.from[0],
    to: parts.to,
    cc: parts.cc,
    replyTo: parts.replyTo[0],
    subject: parts.subject ?? '',
    date: Number.isNaN(date.getTime()) ? new Date() : date,
    messageId: parts.messageId,
    inReplyTo: parts.inReplyTo ?? undefined,
    references: parts.references.length > 0 ? parts.references : undefined,
    headers: [
      ...parts.headers
        .filter((h) => !COMPOSED.has(h.name.toLowerCase()) && !/[\r\n]/.test(h.value))
        .map((h) => ({ key: h.name, value: h.value })),
      { key: REBUILT_HEADER, value: parts.source },
    ],
    text: parts.text ?? undefined,
    html: parts.html ?? undefined,
    attachments: parts.attachments.map((a) => ({
      filename: a.filename ?? undefined,
      contentType: a.contentType,
      content: a.content,
    })),
  });
  return composer.compile().build();
}
