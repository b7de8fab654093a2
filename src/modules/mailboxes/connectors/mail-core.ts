/**
 * The e-mail decisions the connectors use: robot detection, quote stripping, threading and
 * the headers of a reply. One place, so that the connectors depend on these names only.
 */
import { createHmac, randomBytes } from 'node:crypto';

/** The headers the decisions look at, names in lower case. */
export type MailHeaders = Map<string, string>;

export interface MailFacts {
  headers: MailHeaders;
  from: string | null;
  contentType: string;
  /** Our own addresses (the mailbox and its aliases). */
  ownAddresses: string[];
  ownDomain: string;
}

const NOREPLY = /^(no[-_.]?reply|do[-_.]?not[-_.]?reply|mailer-daemon|postmaster|bounces?)([-+_.].*)?@/i;

/** Why a mail must not be answered (a robot, a list, a bounce, ourselves), or null for a person. */
export function isAutomated(mail: MailFacts): string | null {
  const h = mail.headers;
  const autoSubmitted = h.get('auto-submitted')?.trim().toLowerCase();
  if (autoSubmitted && !autoSubmitted.startsWith('no')) return 'auto_submitted';
  if (h.has('x-autoreply') || h.has('x-autorespond') || h.has('x-autoresponse')) return 'auto_reply_header';
  const precedence = h.get('precedence')?.trim().toLowerCase();
  if (precedence && ['bulk', 'list', 'junk', 'auto_reply'].includes(precedence)) return 'precedence_bulk';
  if (h.has('list-id') || h.has('list-unsubscribe')) return 'mailing_list';
  const returnPath = h.get('return-path');
  if (returnPath !== undefined && /^\s*<\s*>\s*$/.test(returnPath)) return 'empty_return_path';
  if (mail.contentType.toLowerCase().startsWith('multipart/report')) return 'bounce';
  const from = mail.from?.toLowerCase() ?? '';
  if (!from) return 'no_sender';
  if (NOREPLY.test(from)) return 'noreply_sender';
  if (mail.ownAddresses.includes(from)) return 'own_address';
  return null;
}

/**
 * The customer's own text: cut at the first quote header of the usual clients (German,
 * English, French, Italian), an Outlook header block, quoted lines or a signature.
 */
export function stripReply(text: string): string {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const kept: string[] = [];
  const quoteHeader = [
    /^\s*Am .+ schrieb .+:\s*$/,
    /^\s*On .+ wrote:\s*$/,
    /^\s*Le .+ a écrit\s*:\s*$/,
    /^\s*Il .+ ha scritto:\s*$/,
    /^\s*(Von|From|De|Da):\s.+$/,
    /^\s*-{2,}\s*(Original Message|Ursprüngliche Nachricht|Message d'origine|Messaggio originale)\s*-{2,}\s*$/i,
  ];
  for (const line of lines) {
    if (line === '-- ' || line === '--') break;
    if (quoteHeader.some((re) => re.test(line))) break;
    if (/^\s*>/.test(line)) continue;
    kept.push(line);
  }
  return kept.join('\n').trim();
}

/** Every id a reply refers to: In-Reply-To first, then the References chain newest first. */
export function threadCandidates(inReplyTo: string | null, references: string[]): string[] {
  const ids = [...(inReplyTo ? [inReplyTo] : []), ...[...references].reverse()];
  return [...new Set(ids.map((id) => id.trim()).filter(Boolean))];
}

/**
 * A Message-ID of ours: a random part and an HMAC tag over it, so that a forged id cannot
 * claim to be one of ours.
 */
export function ownMessageId(domain: string, key: string | Buffer, seed?: string): string {
  const local = seed ?? randomBytes(12).toString('hex');
  const tag = createHmac('sha256', key).update(local).digest('hex').slice(0, 16);
  return `<${local}.${tag}@${domain}>`;
}

export function verifyOwnMessageId(id: string, domain: string, key: string | Buffer): boolean {
  const match = /^<([^.@]+)\.([0-9a-f]{16})@([^>]+)>$/.exec(id.trim());
  if (!match || match[3] !== domain) return false;
  const expected = createHmac('sha256', key).update(match[1]!).digest('hex').slice(0, 16);
  return expected === match[2];
}

/** The subject of a reply: one `Re:`, whatever the client put before. */
export function replySubject(subject: string | null): string {
  const base = (subject ?? '').replace(/^\s*((re|aw|sv|antw|wg|fwd?|tr|r)\s*:\s*)+/i, '').trim();
  return `Re: ${base || '(kein Betreff)'}`;
}

/** The threading headers of a reply to a mail with `messageId` and `references`. */
export function replyHeaders(parent: { messageId: string; references: string[] }): {
  inReplyTo: string;
  references: string[];
} {
  const chain = [...parent.references.filter((id) => id !== parent.messageId), parent.messageId];
  // Long chains keep the first and the newest ids (RFC 5322 3.6.4 allows trimming the middle).
  const trimmed = chain.length > 20 ? [chain[0]!, ...chain.slice(-19)] : chain;
  return { inReplyTo: parent.messageId, references: trimmed };
}
