/**
 * The pure rules of the messaging channels (WhatsApp, SMS): splitting long SMS, opt-out words,
 * the 24-hour customer-service window, the order of delivery statuses and what the providers'
 * error codes mean. No I/O: every decision here is tested by tables of cases.
 */

/** Twilio's hard limit of one SMS body (it sends longer ones as several segments itself). */
export const SMS_MAX_CHARS = 1600;
/** What the bot is asked to keep an SMS answer to. */
export const SMS_PREFERRED_CHARS = 320;
/** WhatsApp's limit of one text message body. */
export const WHATSAPP_TEXT_MAX_CHARS = 4096;
/** Meta's customer-service window: free-form messages only within 24 hours of the customer's last message. */
export const WINDOW_MS = 24 * 3600_000;

/** Quiet window of a burst: default, and the most a connection may set. */
export const QUIET_WINDOW_DEFAULT_MS = 1500;
export const QUIET_WINDOW_MAX_MS = 6000;

const chars = (text: string) => [...text].length;

/** Cuts `text` into pieces of at most `max` characters, at sentence ends, else at spaces, else hard. */
function cut(text: string, max: number): string[] {
  const parts: string[] = [];
  let rest = text.trim();
  while (chars(rest) > max) {
    const head = [...rest].slice(0, max).join('');
    let at = -1;
    for (const m of head.matchAll(/[.!?…](?:["»“”')\]]*)\s+|\n+/g)) {
      const end = (m.index ?? 0) + m[0].length;
      if (end <= head.length) at = end;
    }
    if (at < max * 0.3) {
      const space = head.lastIndexOf(' ');
      at = space > max * 0.3 ? space + 1 : head.length;
    }
    parts.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) parts.push(rest);
  return parts;
}

/**
 * An SMS answer as the bodies that go out: one body when it fits 1,600 characters, otherwise
 * parts of at most 1,600 characters cut at sentence boundaries, each numbered "(1/2) ".
 */
export function splitSms(text: string, max = SMS_MAX_CHARS): string[] {
  const trimmed = text.trim();
  if (chars(trimmed) <= max) return [trimmed];
  // The numbering takes room: "(nn/nn) " at most 8 characters.
  const pieces = cut(trimmed, max - 8);
  return pieces.map((piece, i) => `(${i + 1}/${pieces.length}) ${piece}`);
}

/** Twilio's own opt-out words and ours (German, French, Italian). */
export const OPT_OUT_WORDS = [
  'STOP',
  'UNSUBSCRIBE',
  'END',
  'QUIT',
  'STOPALL',
  'REVOKE',
  'OPTOUT',
  'CANCEL',
  'ABMELDEN',
  'STOPP',
  'ARRÊT',
  'ARRET',
  'BASTA',
] as const;
export const OPT_IN_WORDS = ['START', 'UNSTOP', 'YES'] as const;

function keyword(text: string): string {
  return text
    .trim()
    .replace(/[.!]+$/, '')
    .toUpperCase();
}

/** The whole message is an opt-out word (case and a final full stop ignored). */
export function isOptOut(text: string): boolean {
  return (OPT_OUT_WORDS as readonly string[]).includes(keyword(text));
}

/** The whole message is an opt-in word (START). */
export function isOptIn(text: string): boolean {
  return (OPT_IN_WORDS as readonly string[]).includes(keyword(text));
}

/** The confirmations of an opt-out and an opt-in, in the customer's language. */
export function optOutConfirmation(word: string): string {
  const w = keyword(word);
  if (w === 'ABMELDEN' || w === 'STOPP')
    return 'Sie wurden abgemeldet und erhalten keine Nachrichten mehr. Mit START melden Sie sich wieder an.';
  if (w === 'ARRÊT' || w === 'ARRET')
    return 'Vous êtes désinscrit et ne recevrez plus de messages. Répondez START pour vous réinscrire.';
  if (w === 'BASTA') return 'Non riceverai più messaggi. Rispondi START per iscriverti di nuovo.';
  return 'You have been unsubscribed and will receive no further messages. Reply START to subscribe again.';
}

export const OPT_IN_CONFIRMATION =
  'Willkommen zurück: Sie erhalten wieder Nachrichten. / You are subscribed again.';

/** Whether the customer-service window is open at `now`, and until when. */
export function windowState(
  lastCustomerMessageAt: Date | null,
  now: Date,
): { open: boolean; closesAt: Date | null; remainingMs: number } {
  if (!lastCustomerMessageAt) return { open: false, closesAt: null, remainingMs: 0 };
  const closesAt = new Date(lastCustomerMessageAt.getTime() + WINDOW_MS);
  const remainingMs = Math.max(0, closesAt.getTime() - now.getTime());
  return { open: remainingMs > 0, closesAt, remainingMs };
}

/** The refusal of a free-form message outside the window, in words (the inbox shows it). */
export const WINDOW_CLOSED_TEXT =
  'Das 24-Stunden-Fenster ist geschlossen: Der Kunde hat seit über 24 Stunden nicht geschrieben. Freie Nachrichten stellt WhatsApp erst wieder zu, wenn der Kunde schreibt; senden Sie stattdessen eine freigegebene Vorlage („Vorlage senden“).';

export const OPTED_OUT_TEXT =
  'Diese Nummer hat sich abgemeldet (STOP): Nachrichten werden erst wieder gesendet, wenn der Kunde START schreibt.';

/** Delivery statuses in their order; a status webhook never moves a message backwards. */
const STATUS_RANK: Record<string, number> = {
  queued: 0,
  sending: 1,
  unknown: 2,
  accepted: 3,
  sent: 4,
  delivered: 5,
  read: 6,
  // Final either way: a failure after "sent" still settles the message.
  undelivered: 7,
  failed: 7,
  refused: 7,
};

export function statusRank(status: string): number {
  return STATUS_RANK[status] ?? -1;
}

/** Twilio's message statuses in the service's words. */
export function twilioStatus(status: string): string | null {
  switch (status) {
    case 'accepted':
    case 'queued':
    case 'scheduled':
    case 'sending':
      return 'accepted';
    case 'sent':
      return 'sent';
    case 'delivered':
      return 'delivered';
    case 'read':
      return 'read';
    case 'undelivered':
      return 'undelivered';
    case 'failed':
    case 'canceled':
      return 'failed';
    default:
      return null;
  }
}

/** What the outbox does after a provider refused or failed a send. */
export type ErrorHandling =
  /** Try again later (throughput, pair rate, the provider's 5xx). */
  | 'backoff'
  /** Never again; the message is refused in words. */
  | 'refuse'
  /** The credentials are bad: the connection is unhealthy; the message waits for new ones. */
  | 'unhealthy';

export interface ProviderError {
  code: string;
  handling: ErrorHandling;
  /** In words, for the inbox and the connection's health. */
  text: string;
  /** The number opted out (Twilio 21610). */
  optedOut?: boolean;
  /** The customer-service window is closed (131047, 63016). */
  windowClosed?: boolean;
}

const KNOWN_ERRORS: Record<string, Omit<ProviderError, 'code'>> = {
  '130429': {
    handling: 'backoff',
    text: 'Durchsatzgrenze von WhatsApp erreicht: die Nachricht wird später erneut gesendet.',
  },
  '131056': {
    handling: 'backoff',
    text: 'Zu viele Nachrichten an diese Nummer in kurzer Zeit: die Nachricht wird später erneut gesendet.',
  },
  '131048': {
    handling: 'refuse',
    text: 'WhatsApp hat das Senden wegen der Spam-Grenze dieser Nummer eingeschränkt.',
  },
  '131026': {
    handling: 'refuse',
    text: 'Die Nachricht ist nicht zustellbar (Nummer nicht bei WhatsApp, alte App-Version oder Bedingungen nicht akzeptiert).',
  },
  '131047': { handling: 'refuse', text: WINDOW_CLOSED_TEXT, windowClosed: true },
  '63016': { handling: 'refuse', text: WINDOW_CLOSED_TEXT, windowClosed: true },
  '132000': {
    handling: 'refuse',
    text: 'Die Anzahl der Parameter passt nicht zur Vorlage: WhatsApp hat die Vorlage nicht gesendet. Bitte die Vorlagen neu einlesen und erneut senden.',
  },
  '132001': {
    handling: 'refuse',
    text: 'Diese Vorlage gibt es bei WhatsApp (in dieser Sprache) nicht: bitte die Vorlagen neu einlesen.',
  },
  '132015': {
    handling: 'refuse',
    text: 'Die Vorlage ist pausiert (zu viele negative Rückmeldungen) und kann gerade nicht gesendet werden.',
  },
  '132016': {
    handling: 'refuse',
    text: 'Die Vorlage ist deaktiviert und kann nicht mehr gesendet werden.',
  },
  '190': {
    handling: 'unhealthy',
    text: 'Das Zugriffstoken ist abgelaufen oder ungültig: bitte in der Verbindung ein neues Token eintragen.',
  },
  '401': {
    handling: 'unhealthy',
    text: 'Der Anbieter hat die Zugangsdaten abgelehnt (401): bitte Token bzw. Auth Token der Verbindung prüfen.',
  },
  '20003': {
    handling: 'unhealthy',
    text: 'Twilio hat die Zugangsdaten abgelehnt (20003): bitte Account SID und Auth Token prüfen.',
  },
  '21610': {
    handling: 'refuse',
    text: OPTED_OUT_TEXT,
    optedOut: true,
  },
  '21211': { handling: 'refuse', text: 'Die Empfängernummer ist ungültig.' },
};

/** The service's handling of a provider error (code, else HTTP status). */
export function providerError(code: string | number | null | undefined, httpStatus?: number): ProviderError {
  const key = code === null || code === undefined ? '' : String(code);
  const known = KNOWN_ERRORS[key];
  if (known) return { code: key, ...known };
  if (httpStatus === 401) return { code: '401', ...KNOWN_ERRORS['401']! };
  if (httpStatus === 429 || (httpStatus !== undefined && httpStatus >= 500))
    return {
      code: key || String(httpStatus),
      handling: 'backoff',
      text: `Der Anbieter ist gerade nicht erreichbar (${httpStatus}): die Nachricht wird später erneut gesendet.`,
    };
  return {
    code: key || String(httpStatus ?? 'unknown'),
    handling: 'refuse',
    text: `Der Anbieter hat die Nachricht abgelehnt (${key || httpStatus}).`,
  };
}

/** The provider error codes the service knows by name. */
export const HANDLED_ERROR_CODES = Object.keys(KNOWN_ERRORS);

/** How long to wait after a backoff error before the next attempt. */
export function backoffMs(code: string, attempt: number): number {
  // Pair rate limit: Meta allows about one message every 6 s to one number.
  const base = code === '131056' ? 6_000 : 4_000;
  return Math.min(10 * 60_000, base * 2 ** Math.max(0, attempt - 1));
}

/** A quiet window as a connection may set it. */
export function quietWindowMs(setting: number | undefined): number {
  if (setting === undefined || !Number.isFinite(setting)) return QUIET_WINDOW_DEFAULT_MS;
  return Math.min(QUIET_WINDOW_MAX_MS, Math.max(0, Math.round(setting)));
}

/**
 * When a burst's turn may run: the quiet window after the last message, but never later than
 * the longest wait (6 s) after the first. Returns the delay from `now` (0: now).
 */
export function burstDelayMs(firstAt: number, lastAt: number, now: number, quietMs: number): number {
  const due = Math.min(lastAt + quietMs, firstAt + Math.max(quietMs, QUIET_WINDOW_MAX_MS));
  return Math.max(0, due - now);
}
