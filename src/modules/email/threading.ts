/**
 * Threading of e-mail conversations: our own Message-IDs carry an HMAC tag bound to tenant and
 * conversation (so a forged or copied id cannot attach a mail to another tenant's
 * conversation), a received mail's thread candidates are every id of its References chain and
 * In-Reply-To, and the choice of the conversation is a pure decision over what the store
 * found for those ids. Also the headers of an outbound reply. No I/O.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { header, messageIdsIn, type MailInput } from './mail.js';

const RANDOM_BYTES = 12;
const TAG_BYTES = 16;

function tagOf(secret: string, tenantId: string, conversationId: string, random: string): string {
  return createHmac('sha256', secret)
    .update(`parley-mail-id\u0000${tenantId}\u0000${conversationId}\u0000${random}`)
    .digest()
    .subarray(0, TAG_BYTES)
    .toString('hex');
}

/** The local part of every id ownMessageId makes: 24 hex digits, a dot, the 32-digit tag. */
export const OWN_MESSAGE_ID_LOCAL = /^[0-9a-f]{24}\.[0-9a-f]{32}$/;

/** Strips angle brackets and white space from a message id. */
export function bareId(id: string): string {
  return id.trim().replace(/^<|>$/g, '').trim();
}

/**
 * A new Message-ID for a mail we send in a conversation: `<random.tag@domain>`, where tag is an
 * HMAC over tenant, conversation and the random part. Only the holder of the secret can make
 * one that verifies.
 */
export function ownMessageId(
  domain: string,
  tenantId: string,
  conversationId: string,
  secret: string,
  /** A fixed random part (24 hex digits) for an id that a retried attempt must find again. */
  fixedRandom?: string,
): string {
  const random =
    fixedRandom && /^[0-9a-f]{24}$/.test(fixedRandom)
      ? fixedRandom
      : randomBytes(RANDOM_BYTES).toString('hex');
  return `<${random}.${tagOf(secret, tenantId, conversationId, random)}@${domain.toLowerCase()}>`;
}

/**
 * Whether an id was made by ownMessageId for this tenant and conversation under this secret or
 * one of the earlier ones (after a key rotation, replies to older mails still thread).
 */
export function verifyOwnMessageId(
  id: string,
  expected: {
    domain: string;
    tenantId: string;
    conversationId: string;
    secret: string;
    previousSecrets?: readonly string[];
  },
): boolean {
  const match = /^([0-9a-f]+)\.([0-9a-f]+)@(.+)$/i.exec(bareId(id));
  if (!match) return false;
  const [, random, tag, domain] = match as unknown as [string, string, string, string];
  if (domain.toLowerCase() !== expected.domain.toLowerCase()) return false;
  if (random.length !== RANDOM_BYTES * 2 || tag.length !== TAG_BYTES * 2) return false;
  const given = Buffer.from(tag.toLowerCase(), 'hex');
  return [expected.secret, ...(expected.previousSecrets ?? [])].some((secret) =>
    timingSafeEqual(
      Buffer.from(tagOf(secret, expected.tenantId, expected.conversationId, random.toLowerCase()), 'hex'),
      given,
    ),
  );
}

/** Whether an id has the form of our own ids under this domain (verification needs the conversation). */
export function looksOwn(id: string, domain: string): boolean {
  const match = /^[0-9a-f]+\.[0-9a-f]+@(.+)$/i.exec(bareId(id));
  return match !== null && match[1]!.toLowerCase() === domain.toLowerCase();
}

/**
 * Every id a received mail refers to: the whole References chain (oldest first), then the
 * In-Reply-To ids not already in it. De-duplicated, order kept, brackets removed.
 */
export function threadCandidates(mail: Pick<MailInput, 'headers'>): string[] {
  const ids: string[] = [];
  const add = (values: readonly string[] | undefined) => {
    for (const value of values ?? []) {
      for (const id of messageIdsIn(value)) if (!ids.includes(id)) ids.push(id);
    }
  };
  add(mail.headers['references']);
  add(mail.headers['in-reply-to']);
  return ids;
}

/** The Message-ID of a received mail without brackets, or null. */
export function messageIdOf(mail: Pick<MailInput, 'headers'>): string | null {
  return messageIdsIn(header(mail, 'message-id'))[0] ?? null;
}

/** A message the store found for one of the candidate ids. */
export interface KnownMessage {
  messageId: string;
  tenantId: string;
  conversationId: string;
  /** Addresses taking part in that conversation (lower case). */
  participants: readonly string[];
}

export interface ThreadInput {
  tenantId: string;
  /** Our Message-ID domain and HMAC secret (and those of earlier keys, still accepted). */
  domain: string;
  secret: string;
  previousSecrets?: readonly string[];
  /** The received mail's sender (lower case). */
  sender: string;
  /** threadCandidates(mail); In-Reply-To ids among them are tried first. */
  candidates: readonly string[];
  inReplyTo?: readonly string[];
  /** What the store holds for the candidate ids (any tenant: the decision checks it). */
  known: readonly KnownMessage[];
  /** An earlier received mail of this mailbox with the same Message-ID, and whether its body is the same. */
  sameMessageId?: { conversationId: string; sameBody: boolean } | null;
}

export type ThreadDecision =
  /** The same mail again (a re-sync, a provider retry): store nothing, answer nothing. */
  | { kind: 'duplicate'; conversationId: string }
  | { kind: 'join'; conversationId: string; matchedId: string }
  /** A new conversation; `linkedConversationId` names the thread it answered when the sender was not part of it. */
  | {
      kind: 'new';
      linkedConversationId: string | null;
      reason: 'no_reference' | 'not_participant' | 'reused_message_id';
    };

function trusted(known: KnownMessage, input: ThreadInput): boolean {
  if (known.tenantId !== input.tenantId) return false;
  if (looksOwn(known.messageId, input.domain))
    return verifyOwnMessageId(known.messageId, {
      domain: input.domain,
      tenantId: input.tenantId,
      conversationId: known.conversationId,
      secret: input.secret,
      previousSecrets: input.previousSecrets,
    });
  return true;
}

/**
 * The conversation a received mail belongs to. Candidates are tried nearest first (In-Reply-To,
 * then References from the newest back to the root); an id counts only when it is this
 * tenant's and, for one of our own ids, when its tag verifies for that conversation. The first
 * trusted match whose conversation has the sender as a participant is joined; when the sender
 * takes part in none, a new conversation is opened, linked to the nearest match (two recipients
 * answering one newsletter get two conversations). A Message-ID seen before with the same body
 * is a duplicate; with another body the mail is a new message.
 */
export function chooseThread(input: ThreadInput): ThreadDecision {
  if (input.sameMessageId?.sameBody)
    return { kind: 'duplicate', conversationId: input.sameMessageId.conversationId };
  const sender = input.sender.toLowerCase();
  const order: string[] = [];
  for (const id of [...(input.inReplyTo ?? []).map(bareId), ...[...input.candidates].map(bareId).reverse()]) {
    if (!order.includes(id)) order.push(id);
  }
  let firstMatch: string | null = null;
  for (const id of order) {
    for (const known of input.known) {
      if (bareId(known.messageId) !== id || !trusted(known, input)) continue;
      firstMatch ??= known.conversationId;
      if (known.participants.some((p) => p.toLowerCase() === sender))
        return { kind: 'join', conversationId: known.conversationId, matchedId: id };
    }
  }
  if (firstMatch) return { kind: 'new', linkedConversationId: firstMatch, reason: 'not_participant' };
  if (input.sameMessageId) return { kind: 'new', linkedConversationId: null, reason: 'reused_message_id' };
  return { kind: 'new', linkedConversationId: null, reason: 'no_reference' };
}

// ---------------------------------------------------------------------------------------------
// Subjects

/** Reply and forward prefixes of the usual clients in English, German, Nordic, French, Italian, Dutch, Spanish. */
const PREFIX =
  /^\s*(?:\[[^\]]{0,40}\]\s*)?(?:re|aw|antw|antwort|sv|vs|r|rif|ré|réf|ref|fw|fwd|wg|tr|i|enc|rv|doorst)\s*(?:\[\d+\]|\(\d+\))?\s*[:：]\s*/i;

/** The subject without any leading reply or forward prefixes ("Re: AW: Fwd: x" → "x"). */
export function baseSubject(subject: string): string {
  let rest = subject.replace(/\s+/g, ' ').trim();
  for (let i = 0; i < 20; i++) {
    const match = PREFIX.exec(rest);
    if (!match) break;
    rest = rest.slice(match[0].length);
  }
  return rest.trim();
}

/** A stable reply subject: exactly one `Re: ` before the base subject. */
export function replySubject(subject: string): string {
  const base = baseSubject(subject);
  return base === '' ? 'Re:' : `Re: ${base}`;
}

// ---------------------------------------------------------------------------------------------
// Outbound headers

/** Most ids an outbound References keeps: the root and the newest ones. */
export const MAX_REFERENCES = 20;
const LINE_LIMIT = 78;

/** Folds a header of message ids at RFC 5322's recommended 78 characters (CRLF + space). */
export function foldIds(name: string, ids: readonly string[]): string {
  const lines: string[] = [];
  let line = `${name}:`;
  for (const id of ids) {
    const token = `<${bareId(id)}>`;
    if (line.length + 1 + token.length > LINE_LIMIT && line !== `${name}:`) {
      lines.push(line);
      line = ` ${token}`;
    } else line += ` ${token}`;
  }
  lines.push(line);
  return lines.join('\r\n').slice(name.length + 2);
}

export interface ReplyOriginal {
  /** The Message-ID of the mail answered (with or without brackets). */
  messageId: string | null;
  /** Its References ids (oldest first) and In-Reply-To ids. */
  references?: readonly string[];
  inReplyTo?: readonly string[];
  subject: string;
}

export interface ReplyHeaders {
  /** Header values; References is folded (CRLF + space) so no line exceeds 78 characters. */
  headers: Record<string, string>;
  /** The References ids in order (for libraries that fold themselves, e.g. nodemailer's `references`). */
  references: string[];
  subject: string;
}

/**
 * Headers of a reply in a thread. A bot's reply carries `Auto-Submitted: auto-replied`
 * (RFC 3834) and `X-Auto-Response-Suppress: All`; a person's reply from the dashboard carries
 * neither.
 */
export function replyHeaders(
  original: ReplyOriginal,
  ownId: string,
  options: { automated: boolean } = { automated: true },
): ReplyHeaders {
  const chain: string[] = [];
  const add = (id: string) => {
    const bare = bareId(id);
    if (bare && !chain.includes(bare)) chain.push(bare);
  };
  const references = original.references ?? [];
  (references.length > 0 ? references : (original.inReplyTo ?? [])).forEach(add);
  if (original.messageId) add(original.messageId);
  const kept = chain.length > MAX_REFERENCES ? [chain[0]!, ...chain.slice(-(MAX_REFERENCES - 1))] : chain;
  const subject = replySubject(original.subject);
  const headers: Record<string, string> = {
    'Message-ID': `<${bareId(ownId)}>`,
    Subject: subject,
  };
  if (original.messageId) headers['In-Reply-To'] = `<${bareId(original.messageId)}>`;
  if (kept.length > 0) headers['References'] = foldIds('References', kept);
  if (options.automated) {
    headers['Auto-Submitted'] = 'auto-replied';
    headers['X-Auto-Response-Suppress'] = 'All';
  }
  return { headers, references: kept, subject };
}
