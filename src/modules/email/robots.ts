/**
 * Never answer a robot: whether a received mail was sent by a machine (auto-reply, vacation
 * notice, bounce, list or newsletter, no-reply notification, our own mail coming back), and the
 * loop guard that caps the bot's replies to one sender. Pure decisions, no I/O; every refusal
 * is a stable reason code with a German and an English text (the dashboard shows them beside
 * the skipped mail).
 */
import { createHash } from 'node:crypto';
import { addressesIn, header, messageIdsIn, type MailInput } from './mail.js';

export const SKIP_REASONS = {
  auto_submitted: {
    de: 'Automatisch versendet (Auto-Submitted)',
    en: 'Sent automatically (Auto-Submitted)',
  },
  autoreply_header: {
    de: 'Automatische Antwort (X-Autoreply)',
    en: 'Automatic reply (X-Autoreply)',
  },
  precedence: {
    de: 'Massen- oder Listenversand (Precedence)',
    en: 'Bulk or list mail (Precedence)',
  },
  mailing_list: {
    de: 'Mail einer Mailingliste oder eines Newsletters',
    en: 'Mailing list or newsletter mail',
  },
  empty_return_path: {
    de: 'Leerer Return-Path (Systemnachricht)',
    en: 'Empty Return-Path (system message)',
  },
  mailer_daemon: {
    de: 'Absender ist ein Mailsystem (MAILER-DAEMON/postmaster)',
    en: 'Sender is a mail system (MAILER-DAEMON/postmaster)',
  },
  delivery_report: {
    de: 'Zustellbericht oder Unzustellbarkeitsnachricht',
    en: 'Delivery report or bounce',
  },
  noreply_sender: {
    de: 'Absender nimmt keine Antworten an (no-reply)',
    en: 'Sender takes no replies (no-reply)',
  },
  own_address: {
    de: 'Absender ist eine eigene Adresse',
    en: 'Sender is one of our own addresses',
  },
  own_message_id: {
    de: 'Eigene Nachricht kam zurück',
    en: 'Our own message came back',
  },
  inbox_rules_loop: {
    de: 'Durch eine Postfachregel weitergeleitet (Exchange)',
    en: 'Forwarded by a mailbox rule (Exchange)',
  },
  no_sender: {
    de: 'Kein Absender, an den geantwortet werden könnte',
    en: 'No sender to reply to',
  },
  auto_reply_signals: {
    de: 'Abwesenheitsnotiz oder automatische Antwort',
    en: 'Out-of-office notice or automatic reply',
  },
  hourly_cap: {
    de: 'Stundenlimit der Antworten an diesen Absender erreicht',
    en: 'Hourly limit of replies to this sender reached',
  },
  daily_cap: {
    de: 'Tageslimit der Antworten an diesen Absender erreicht',
    en: 'Daily limit of replies to this sender reached',
  },
  duplicate_body: {
    de: 'Gleicher Text desselben Absenders wurde vor Kurzem schon beantwortet',
    en: 'The same text from this sender was answered a moment ago',
  },
} as const satisfies Record<string, { de: string; en: string }>;

export type SkipReason = keyof typeof SKIP_REASONS;

/** The text of a reason in the given language (German unless English is asked for). */
export function skipReasonText(reason: SkipReason, language: string = 'de'): string {
  return SKIP_REASONS[reason][language.toLowerCase().startsWith('en') ? 'en' : 'de'];
}

export interface OwnIdentity {
  /** The mailbox's own addresses (the connected address, its aliases, the tenant's other mailboxes). */
  addresses?: readonly string[];
  /** Domains our outbound Message-IDs use. */
  messageIdDomains?: readonly string[];
  /**
   * The shape of our ids' local part: when given, only an id of that shape under one of the
   * domains counts (a colleague's mail client on the same domain makes ids there too).
   */
  messageIdLocal?: RegExp;
}

export type RobotVerdict =
  | { automated: false; reason: null; signals: string[] }
  | { automated: true; reason: SkipReason; signals: string[] };

/** Local parts of senders that take no replies. Separators (`-`, `_`, `.`) are ignored. */
const NOREPLY_LOCAL =
  /(^|[-_.+])(no-?reply|do-?not-?reply|dont-?reply|no-?response|no-?answer|nicht-?antworten|keine-?antwort|ne-?pas-?repondre|ne-?pas-?r[eé]pondre|non-?rispondere|bounces?)([-_.+]|$)/;

const VACATION_SUBJECT =
  /^(automatic reply|auto(matic)?[- ]?reply|autoreply|out of (the )?office|ooo\b|abwesenheit|automatische antwort|abwesenheitsnotiz|automatische r[uü]ckantwort|ich bin (nicht|au(ss|ß)er)|r[ée]ponse automatique|absence|risposta automatica|fuori sede|assente|vacation|urlaub|away from)/i;

function weakSignals(mail: MailInput): string[] {
  const found: string[] = [];
  if (header(mail, 'x-auto-response-suppress') !== undefined) found.push('x-auto-response-suppress');
  const subject = mail.subject.replace(/^\s*((re|aw|fw|fwd|wg)\s*:\s*)*/i, '');
  if (VACATION_SUBJECT.test(subject)) found.push('vacation-subject');
  return found;
}

const localPart = (address: string) => address.split('@')[0]!.toLowerCase();
const domainOf = (address: string) => (address.split('@')[1] ?? '').toLowerCase();

/**
 * Whether a received mail was sent by a machine. Strong signals decide alone; the weak ones
 * (an `X-Auto-Response-Suppress` header on an incoming mail, a vacation-style subject) decide
 * only together. The first strong signal found is the reason; `signals` lists all.
 */
export function isAutomated(mail: MailInput, own: OwnIdentity = {}): RobotVerdict {
  const strong: [SkipReason, string][] = [];

  const autoSubmitted = header(mail, 'auto-submitted');
  if (autoSubmitted !== undefined) {
    const value = autoSubmitted.split(';')[0]!.trim().toLowerCase();
    if (value !== 'no' && value !== '') strong.push(['auto_submitted', `auto-submitted: ${value}`]);
  }
  for (const name of ['x-autoreply', 'x-autorespond', 'x-autoresponder', 'x-autogenerated', 'x-auto-reply']) {
    const value = header(mail, name);
    if (value !== undefined && value.trim().toLowerCase() !== 'no') strong.push(['autoreply_header', name]);
  }
  const precedence = header(mail, 'precedence')?.trim().toLowerCase();
  if (precedence && /^(bulk|list|junk|auto_reply)\b/.test(precedence))
    strong.push(['precedence', `precedence: ${precedence}`]);
  for (const name of ['list-id', 'list-unsubscribe', 'list-post']) {
    if (header(mail, name) !== undefined) strong.push(['mailing_list', name]);
  }
  const returnPath = mail.headers['return-path'];
  if (returnPath?.some((v) => /^<\s*>$/.test(v.trim()) || v.trim() === ''))
    strong.push(['empty_return_path', 'return-path: <>']);
  const from = mail.from?.toLowerCase() ?? null;
  const fromLocal = from ? localPart(from) : '';
  if (fromLocal === 'mailer-daemon' || fromLocal === 'postmaster' || /^mailer[-_]daemon$/.test(fromLocal))
    strong.push(['mailer_daemon', `from: ${from}`]);
  else if (!from && /mailer-daemon|postmaster/i.test(header(mail, 'from') ?? ''))
    strong.push(['mailer_daemon', 'from: mailer-daemon']);
  if (/^multipart\/report\b/i.test(mail.contentType.trim()))
    strong.push(['delivery_report', 'multipart/report']);
  const ownAddresses = new Set((own.addresses ?? []).map((a) => a.toLowerCase()));
  // A contact form's mail: sent from the website's own (or a no-reply) address with the person
  // who wrote in Reply-To. The person is the sender the checks read; the mail is theirs.
  const replyTo = mail.replyTo?.toLowerCase() ?? null;
  const person = replyTo && replyTo !== from && !ownAddresses.has(replyTo) ? replyTo : null;
  const sender = person ?? from;
  const senderLocal = sender ? localPart(sender) : '';
  if (senderLocal && NOREPLY_LOCAL.test(senderLocal.replace(/_/g, '-')))
    strong.push(['noreply_sender', `from: ${sender}`]);
  if (sender && ownAddresses.has(sender)) strong.push(['own_address', `from: ${sender}`]);
  const ownDomains = new Set((own.messageIdDomains ?? []).map((d) => d.toLowerCase()));
  const messageId = messageIdsIn(header(mail, 'message-id'))[0];
  const localOk = (id: string) =>
    !own.messageIdLocal || own.messageIdLocal.test(id.slice(0, id.lastIndexOf('@')));
  if (messageId && ownDomains.has(domainOf(messageId)) && localOk(messageId))
    strong.push(['own_message_id', `message-id: ${messageId}`]);
  if (header(mail, 'x-ms-exchange-inbox-rules-loop') !== undefined)
    strong.push(['inbox_rules_loop', 'x-ms-exchange-inbox-rules-loop']);
  // Our own address named as the Return-Path of a reply-to-all (a loop through a forward).
  if (!person && returnPath && returnPath.some((v) => addressesIn(v).some((a) => ownAddresses.has(a))))
    strong.push(['own_address', 'return-path']);

  if (!from && !strong.some(([r]) => r === 'mailer_daemon')) strong.push(['no_sender', 'from: none']);

  const weak = weakSignals(mail);
  const signals = [...strong.map(([, s]) => s), ...weak];
  if (strong.length > 0) return { automated: true, reason: strong[0]![0], signals };
  if (weak.length >= 2) return { automated: true, reason: 'auto_reply_signals', signals };
  return { automated: false, reason: null, signals };
}

// ---------------------------------------------------------------------------------------------
// Loop guard

export interface LoopCaps {
  /** Bot replies to one sender in one conversation per rolling hour. */
  perHour: number;
  /** Bot replies to one sender in one conversation per rolling day. */
  perDay: number;
}

export const DEFAULT_LOOP_CAPS: LoopCaps = { perHour: 5, perDay: 20 };

/** The window in which the same text from the same sender is answered once. */
export const DUPLICATE_BODY_WINDOW_MS = 10 * 60 * 1000;

export interface LoopCounts {
  /** Bot replies already sent to this sender in this conversation within the last hour. */
  repliesLastHour: number;
  /** … within the last 24 hours. */
  repliesLastDay: number;
  /** A mail of this sender with the same body fingerprint was answered within the last 10 minutes. */
  sameBodyAnsweredRecently: boolean;
}

export type LoopDecision =
  { answer: true; reason: null } | { answer: false; reason: 'hourly_cap' | 'daily_cap' | 'duplicate_body' };

/** Whether the bot may answer this sender now, given what it has already sent. */
export function loopGuard(counts: LoopCounts, caps: LoopCaps = DEFAULT_LOOP_CAPS): LoopDecision {
  if (counts.sameBodyAnsweredRecently) return { answer: false, reason: 'duplicate_body' };
  if (counts.repliesLastDay >= caps.perDay) return { answer: false, reason: 'daily_cap' };
  if (counts.repliesLastHour >= caps.perHour) return { answer: false, reason: 'hourly_cap' };
  return { answer: true, reason: null };
}

/**
 * Fingerprint of a mail's text for the duplicate-body rule: white space collapsed, case
 * folded, so a re-sent mail with other line breaks matches. Use it on the stripped text.
 */
export function bodyFingerprint(text: string): string {
  const normalised = text.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase();
  return createHash('sha256').update(normalised).digest('hex');
}
