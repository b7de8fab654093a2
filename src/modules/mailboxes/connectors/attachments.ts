/**
 * The text of a received mail's attachments for the bot: only when the mailbox allows it
 * (`settings.read_attachments`), only media types on the list (`EMAIL_ATTACHMENT_TYPES`: PDF and
 * DOCX by default), each at most `EMAIL_ATTACHMENT_MAX_BYTES` and all together at most
 * `EMAIL_ATTACHMENTS_MAX_TOTAL_BYTES`. The text is extracted by the knowledge imports' isolated
 * document parser (a separate process with its own heap cap and deadline), never in the
 * service's own heap; at most `EMAIL_ATTACHMENT_TEXT_MAX_CHARS` characters reach the bot.
 */
import type { AppContext } from '../../../shared/context.js';
import { parserPool, type ParserLimits } from '../../knowledge/index.js';
import type { MailboxRow } from '../../mailboxes/repository.js';

/** An attachment of a received mail as a connector brought it. */
export interface InboundAttachment {
  filename: string | null;
  contentType: string;
  size: number;
  content: Buffer;
  /** Refused by the connector already (e.g. `not_a_file`: an attached Outlook item): stored with this reason. */
  refused?: string;
}

export interface AttachmentNote {
  name: string;
  type: string;
  size: number;
  read: boolean;
  /**
   * Why its text did not reach the bot: not_allowed, not_a_file, type, too_large, total_too_large,
   * unreadable, text_limit.
   */
  reason: string | null;
}

const EXTENSION_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

/** The media type an attachment is taken for: its own, or its extension's when it says only octet-stream. */
export function attachmentType(attachment: Pick<InboundAttachment, 'contentType' | 'filename'>): string {
  const own = attachment.contentType.split(';')[0]!.trim().toLowerCase();
  if (own && own !== 'application/octet-stream') return own;
  const extension = /\.([a-z0-9]+)$/i.exec(attachment.filename ?? '')?.[1]?.toLowerCase() ?? '';
  return EXTENSION_TYPES[extension] ?? own;
}

/** The attachments' text for the bot (empty when none may be read) and a note per attachment. */
export async function readAttachments(
  ctx: AppContext,
  mailbox: MailboxRow,
  attachments: readonly InboundAttachment[],
): Promise<{ text: string; notes: AttachmentNote[] }> {
  const limits = ctx.config.email;
  const allowed = mailbox.settings.read_attachments === true;
  const notes: AttachmentNote[] = [];
  const parts: string[] = [];
  let totalBytes = 0;
  let chars = 0;
  for (const [index, attachment] of attachments.entries()) {
    const name = attachment.filename ?? `attachment-${index + 1}`;
    const type = attachmentType(attachment);
    const note: AttachmentNote = { name, type, size: attachment.size, read: false, reason: null };
    notes.push(note);
    if (!allowed) {
      note.reason = 'not_allowed';
      continue;
    }
    if (attachment.refused) {
      note.reason = attachment.refused;
      continue;
    }
    if (!limits.attachmentTypes.includes(type)) {
      note.reason = 'type';
      continue;
    }
    if (attachment.size > limits.attachmentMaxBytes) {
      note.reason = 'too_large';
      continue;
    }
    if (totalBytes + attachment.size > limits.attachmentsMaxTotalBytes) {
      note.reason = 'total_too_large';
      continue;
    }
    totalBytes += attachment.size;
    const room = limits.attachmentTextMaxChars - chars;
    if (room <= 0) {
      note.reason = 'text_limit';
      continue;
    }
    const imports = ctx.config.knowledgeImport;
    const parserLimits: ParserLimits = {
      maxBytes: limits.attachmentMaxBytes,
      maxChars: Math.max(1000, limits.attachmentTextMaxChars * 4),
      maxPdfPages: Math.min(imports.maxPdfPages, 200),
      maxUnpackedBytes: imports.maxUnpackedBytes,
      maxCompressionRatio: imports.maxCompressionRatio,
      maxEntries: imports.maxEntries,
      timeoutMs: Math.min(imports.parserTimeoutMs, 30_000),
      memoryMb: imports.parserMemoryMb,
    };
    try {
      const parsed = await parserPool(imports.parsers).parse(
        { bytes: attachment.content, name, mediaType: type, title: name },
        parserLimits,
      );
      const text = parsed.sections
        .map((s) => s.content.trim())
        .filter(Boolean)
        .join('\n\n')
        .slice(0, room);
      if (!text) {
        note.reason = 'unreadable';
        continue;
      }
      chars += text.length;
      note.read = true;
      parts.push(`[${name}]\n${text}`);
    } catch {
      note.reason = 'unreadable';
    }
  }
  return { text: parts.join('\n\n'), notes };
}
