/**
 * The channel registry: the one list of channel kinds and, per kind, the descriptor every
 * former list and switch reads — what a chat caller may name, what a bot and a contact may
 * list, the booking channel a booking made on it records, its go-live fact, its reply format,
 * message length and natively rendered blocks, the outbox kinds its sender takes, the guards
 * its inbound turns pass, and its label
 * in German and English. Pure data and pure functions: no I/O, no imports of other modules.
 *
 * The database's check constraint on `conversations.channel`, the OpenAPI enums (conversation
 * schema and `?channel=` filter, bot channels, contact channels, go-live channels) and the
 * dashboard's filter and labels are checked against this list (test/channels/registry.test.ts).
 * A new channel kind is one descriptor here, an adapter folder and a sender (docs/channels.md).
 */

/** Every channel kind, in the order lists show them. */
export const CHANNEL_KINDS = [
  'api',
  'webhook',
  'widget',
  'email',
  'test',
  'whatsapp',
  'sms',
  'voice',
] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

/** The booking channels of the specification (`booking_channel`). */
export const BOOKING_CHANNELS = ['whatsapp', 'voice', 'email', 'manual', 'api'] as const;
export type BookingChannel = (typeof BOOKING_CHANNELS)[number];

/**
 * How a reply is written for the channel: plain running text; interactive blocks as numbered
 * choices in the text; buttons and lists the channel renders itself; or speech.
 */
export type ReplyFormat = 'plain' | 'numbered' | 'interactive' | 'speech';

/** The interactive blocks of a reply (flow/stage.ts) a channel can render natively. */
export type NativeBlock = 'buttons' | 'list';

/** The go-live checklist's channel entries and the fact that makes each one count. */
export const GO_LIVE_ENTRIES = ['widget', 'share_link', 'email'] as const;
export type GoLiveEntry = (typeof GO_LIVE_ENTRIES)[number];
export type GoLiveFact = 'widgetLive' | 'shareLink' | 'mailboxes';

/**
 * The channel guards admission runs for a turn on a channel (chat/pipeline/guards.ts), by name:
 * the e-mail loop guard with its caps, the widget's daily budget, the customer's opt-out on a
 * messaging channel. Their implementations are composed in src/context.ts (`ctx.guards`).
 */
export const GUARD_NAMES = ['email_loop', 'widget_budget', 'messaging_opt_out'] as const;
export type GuardName = (typeof GUARD_NAMES)[number];

export interface ChannelDescriptor {
  kind: ChannelKind;
  /** The dashboard's label. */
  label: { de: string; en: string };
  /** Conversations on it can be started today (an adapter exists). */
  connectable: boolean;
  /** A chat API caller may name it in `channel` (the specification's list). */
  chatRequest: boolean;
  /** A bot may list it in `channels` (the channels a bot is named for). */
  botChannel: boolean;
  /** A contact may name it as the channel they came in on. */
  contactChannel: boolean;
  /** What the sender id is on it: a phone number, an e-mail address, or the caller's own id. */
  address: 'phone' | 'email' | 'free';
  /** The `booking_channel` a booking made in a conversation on it records. */
  bookingChannel: BookingChannel;
  /** How the reply is written for it. */
  replyFormat: ReplyFormat;
  /** Longest message the channel carries (characters); longer replies are split. Null: no limit. */
  maxMessageChars: number | null;
  /** Blocks it renders itself; the others are written into the text as numbered choices. */
  nativeBlocks: readonly NativeBlock[];
  /**
   * The outbox kinds its replies leave through: the bot's on an asynchronous channel and a
   * person's from the inbox take the same kind with the same payload (one per sender, see
   * docs/ARCHITECTURE.md "Outbound path"). Messaging has one per provider (Meta, Twilio). A
   * channel whose bot replies go back in the HTTP answer has the API's: a person's reply is the
   * tenant's `conversation.message` webhook event.
   */
  outboxKinds: readonly string[];
  /** The guards admission runs for its inbound turns, in this order. */
  guards: readonly GuardName[];
  /** The go-live checklist's entries it makes count, and the fact each needs. */
  goLive: readonly { entry: GoLiveEntry; fact: GoLiveFact }[];
  /**
   * An instruction for the model added to the system prompt of a turn on this channel (how to
   * write for it), or null for none.
   */
  promptHint: string | null;
}

/** Preferred length of an SMS reply: two SMS parts at most (prompt instruction, not a cut). */
export const SMS_PREFERRED_CHARS = 320;

/** The messaging app's guidance: at most 1600 characters per message (specification). */
export const MESSAGING_MAX_CHARS = 1600;

const NONE = [] as const;

/** A person's reply as the API's `conversation.message` webhook event (outbox kind `webhook`). */
const API_EVENT = ['webhook'] as const;

/** The descriptors, one per kind. */
export const CHANNELS: Readonly<Record<ChannelKind, ChannelDescriptor>> = {
  api: {
    kind: 'api',
    address: 'free',
    label: { de: 'API', en: 'API' },
    connectable: true,
    chatRequest: true,
    botChannel: true,
    contactChannel: true,
    bookingChannel: 'api',
    replyFormat: 'interactive',
    maxMessageChars: null,
    nativeBlocks: ['buttons', 'list'],
    outboxKinds: API_EVENT,
    guards: NONE,
    goLive: NONE,
    promptHint: null,
  },
  webhook: {
    kind: 'webhook',
    address: 'free',
    label: { de: 'Webhook', en: 'Webhook' },
    connectable: true,
    chatRequest: true,
    botChannel: true,
    contactChannel: true,
    // An integration through the tenant's own system: bookings count as the API's.
    bookingChannel: 'api',
    replyFormat: 'interactive',
    maxMessageChars: null,
    nativeBlocks: ['buttons', 'list'],
    outboxKinds: API_EVENT,
    guards: NONE,
    goLive: NONE,
    promptHint: null,
  },
  widget: {
    kind: 'widget',
    address: 'free',
    label: { de: 'Website-Widget', en: 'Website widget' },
    connectable: true,
    chatRequest: false,
    botChannel: false,
    contactChannel: false,
    bookingChannel: 'api',
    replyFormat: 'interactive',
    maxMessageChars: null,
    nativeBlocks: ['buttons', 'list'],
    outboxKinds: ['widget.push'],
    guards: ['widget_budget'],
    goLive: [
      { entry: 'widget', fact: 'widgetLive' },
      { entry: 'share_link', fact: 'shareLink' },
    ],
    promptHint: null,
  },
  email: {
    kind: 'email',
    address: 'email',
    label: { de: 'E-Mail', en: 'Email' },
    connectable: true,
    chatRequest: true,
    botChannel: true,
    contactChannel: true,
    bookingChannel: 'email',
    replyFormat: 'numbered',
    maxMessageChars: null,
    nativeBlocks: NONE,
    outboxKinds: ['email.reply'],
    guards: ['email_loop'],
    goLive: [{ entry: 'email', fact: 'mailboxes' }],
    promptHint: null,
  },
  test: {
    kind: 'test',
    address: 'free',
    label: { de: 'Testchat', en: 'Test chat' },
    connectable: false,
    chatRequest: false,
    botChannel: false,
    contactChannel: false,
    bookingChannel: 'manual',
    replyFormat: 'interactive',
    maxMessageChars: null,
    nativeBlocks: ['buttons', 'list'],
    outboxKinds: API_EVENT,
    guards: NONE,
    goLive: NONE,
    promptHint: null,
  },
  whatsapp: {
    kind: 'whatsapp',
    address: 'phone',
    label: { de: 'WhatsApp', en: 'WhatsApp' },
    connectable: false,
    chatRequest: false,
    botChannel: true,
    contactChannel: true,
    bookingChannel: 'whatsapp',
    replyFormat: 'interactive',
    maxMessageChars: MESSAGING_MAX_CHARS,
    nativeBlocks: ['buttons', 'list'],
    outboxKinds: ['whatsapp.send', 'twilio.send'],
    guards: ['messaging_opt_out'],
    goLive: NONE,
    promptHint: null,
  },
  sms: {
    kind: 'sms',
    address: 'phone',
    label: { de: 'SMS', en: 'SMS' },
    connectable: false,
    chatRequest: false,
    botChannel: false,
    contactChannel: false,
    // The specification's booking channels name no SMS: its bookings count as the API's.
    bookingChannel: 'api',
    replyFormat: 'numbered',
    maxMessageChars: MESSAGING_MAX_CHARS,
    nativeBlocks: NONE,
    outboxKinds: ['twilio.send'],
    guards: ['messaging_opt_out'],
    goLive: NONE,
    promptHint:
      `## Kanal: SMS\nDer Kunde schreibt per SMS. Antworte kurz und knapp: möglichst höchstens ${SMS_PREFERRED_CHARS} Zeichen, ` +
      'ohne Aufzählungen, Tabellen oder Formatierung; nur das Nötigste, bei Bedarf eine kurze Rückfrage.',
  },
  voice: {
    kind: 'voice',
    address: 'phone',
    label: { de: 'Telefon', en: 'Voice' },
    connectable: false,
    chatRequest: false,
    botChannel: true,
    contactChannel: true,
    bookingChannel: 'voice',
    replyFormat: 'speech',
    maxMessageChars: null,
    nativeBlocks: NONE,
    outboxKinds: API_EVENT,
    guards: NONE,
    goLive: NONE,
    promptHint: null,
  },
};

export function isChannelKind(value: unknown): value is ChannelKind {
  return typeof value === 'string' && Object.hasOwn(CHANNELS, value);
}

/** The descriptor of a stored channel; an unknown one is read as the API's. */
export function channelOf(kind: string): ChannelDescriptor {
  return isChannelKind(kind) ? CHANNELS[kind] : CHANNELS.api;
}

/** The kinds whose descriptor has the flag set, in registry order. */
export function kindsWhere(
  flag: 'connectable' | 'chatRequest' | 'botChannel' | 'contactChannel',
): ChannelKind[] {
  return CHANNEL_KINDS.filter((kind) => CHANNELS[kind][flag]);
}

/** The go-live checklist's channel entries that count for these facts, in registry order. */
export function liveEntries(facts: Record<GoLiveFact, boolean | number>): GoLiveEntry[] {
  return CHANNEL_KINDS.flatMap((kind) =>
    CHANNELS[kind].goLive.filter((g) => Boolean(facts[g.fact])).map((g) => g.entry),
  );
}

/** Every outbox kind a channel's replies leave through, once each (the composed senders must cover them). */
export function channelOutboxKinds(): string[] {
  return [...new Set(CHANNEL_KINDS.flatMap((kind) => CHANNELS[kind].outboxKinds))];
}

/**
 * A reply cut into the channel's messages: at most `maxMessageChars` characters each, split
 * after a paragraph, a sentence or a word where one falls in the second half of the piece, hard
 * otherwise. A channel without a limit gets the reply whole.
 */
export function splitForChannel(kind: ChannelKind, text: string): string[] {
  const max = CHANNELS[kind].maxMessageChars;
  if (max === null) return [text];
  const chars = [...text];
  const parts: string[] = [];
  let start = 0;
  while (chars.length - start > max) {
    const window = chars.slice(start, start + max).join('');
    const cut = cutPoint(window);
    parts.push(window.slice(0, cut).trimEnd());
    start += [...window.slice(0, cut)].length;
    while (start < chars.length && /\s/.test(chars[start]!)) start += 1;
  }
  const rest = chars.slice(start).join('');
  if (rest.length > 0 || parts.length === 0) parts.push(rest);
  return parts;
}

/** Where a piece is best cut: the last paragraph, sentence end or space in its second half. */
function cutPoint(window: string): number {
  const half = Math.floor(window.length / 2);
  for (const pattern of [/\n\s*\n/g, /[.!?…](?=\s)/g, /\s/g]) {
    let best = -1;
    for (const match of window.matchAll(pattern)) {
      const end = match.index + (pattern.source.startsWith('[') ? 1 : 0);
      if (end >= half) best = end;
    }
    if (best > 0) return best;
  }
  return window.length;
}
