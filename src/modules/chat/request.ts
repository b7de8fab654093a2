import { AppError, CHAT_EXTRA_TEXT, CHAT_MESSAGE, CHAT_TEXT } from '../../http/errors.js';
import { kindsWhere, type ChannelKind } from '../channels/index.js';

/** The channels a chat caller may name (the registry's `chatRequest`: email, api, webhook). */
export const CHAT_CHANNELS: readonly ChannelKind[] = kindsWhere('chatRequest');
/** The channel of a message: one a chat caller names, or the one an adapter (widget, …) sets. */
export type ChatChannel = ChannelKind;

export const MAX_MESSAGE_CHARS = 10_000;
export const MAX_SENDER_ID_CHARS = 255;
export const MAX_METADATA_BYTES = 16 * 1024;
const KNOWN_FIELDS = new Set(['message', 'sender_id', 'channel', 'conversation_id', 'metadata', 'choice']);

export interface ChatInput {
  message: string;
  senderId: string | null;
  channel: ChatChannel;
  /** As sent; checked against the bot's conversations later (malformed → 404 there). */
  conversationId: string | null;
  metadata: Record<string, unknown>;
  /** A structured choice of an interactive block's item (absent when the message is plain text). */
  choice?: { blockId: string; itemId: string };
}

/** Length in characters (code points), so an emoji counts once, as a user would count it. */
function characterCount(text: string, limit: number): number {
  // Only text longer than the limit in UTF-16 units can exceed it in code points.
  return text.length <= limit ? text.length : [...text].length;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function normalizeChannel(value: unknown): ChatChannel {
  return typeof value === 'string' && (CHAT_CHANNELS as readonly string[]).includes(value)
    ? (value as ChannelKind)
    : 'api';
}

/**
 * Validates the chat body in the specification's order (message, then sender_id, then the
 * rest) and returns it normalised. Throws the exact German error texts.
 * Null counts as absent for the optional fields, as JSON clients often send it that way.
 */
export function parseChatRequest(body: unknown): ChatInput {
  if (!isPlainObject(body)) throw new AppError(400, CHAT_TEXT.messageRequired);
  const { message, sender_id: senderId, channel, conversation_id: conversationId, metadata } = body;

  if (typeof message !== 'string' || message.trim() === '')
    throw new AppError(400, CHAT_TEXT.messageRequired);
  if (characterCount(message, MAX_MESSAGE_CHARS) > MAX_MESSAGE_CHARS) {
    throw new AppError(400, CHAT_TEXT.messageTooLong);
  }

  if (senderId !== undefined && senderId !== null) {
    if (typeof senderId !== 'string' || characterCount(senderId, MAX_SENDER_ID_CHARS) > MAX_SENDER_ID_CHARS) {
      throw new AppError(400, CHAT_TEXT.invalidSenderId);
    }
  }

  if (metadata !== undefined && metadata !== null) {
    if (!isPlainObject(metadata)) {
      throw new AppError(400, CHAT_EXTRA_TEXT.invalidMetadata, CHAT_MESSAGE.metadataNotObject);
    }
    if (Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES) {
      throw new AppError(
        400,
        CHAT_EXTRA_TEXT.invalidMetadata,
        CHAT_MESSAGE.metadataTooLarge(MAX_METADATA_BYTES),
      );
    }
  }

  const choice = parseChoice(body.choice);

  const unknown = Object.keys(body).find((key) => !KNOWN_FIELDS.has(key));
  if (unknown !== undefined) {
    throw new AppError(400, CHAT_EXTRA_TEXT.unknownField, CHAT_MESSAGE.unknownField(unknown.slice(0, 100)));
  }

  return {
    message,
    senderId: typeof senderId === 'string' && senderId !== '' ? senderId : null,
    channel: normalizeChannel(channel),
    conversationId:
      conversationId === undefined || conversationId === null || conversationId === ''
        ? null
        : String(conversationId),
    metadata: isPlainObject(metadata) ? metadata : {},
    ...(choice ? { choice } : {}),
  };
}

const CHOICE_ITEM_ID = /^[A-Za-z0-9_-]{1,64}$/;
const CHOICE_BLOCK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `choice`: `{block_id, item_id}` of an item the user picked; null or absent means none. */
function parseChoice(value: unknown): ChatInput['choice'] {
  if (value === undefined || value === null) return undefined;
  if (
    !isPlainObject(value) ||
    Object.keys(value).some((k) => k !== 'block_id' && k !== 'item_id') ||
    typeof value.block_id !== 'string' ||
    !CHOICE_BLOCK_ID.test(value.block_id) ||
    typeof value.item_id !== 'string' ||
    !CHOICE_ITEM_ID.test(value.item_id)
  ) {
    throw new AppError(400, CHAT_EXTRA_TEXT.invalidChoice, CHAT_MESSAGE.invalidChoice);
  }
  return { blockId: value.block_id.toLowerCase(), itemId: value.item_id };
}

const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** `Idempotency-Key`: 1–255 visible ASCII characters; absent means no idempotency. */
export function parseIdempotencyKey(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !IDEMPOTENCY_KEY_PATTERN.test(value.trim())) {
    throw new AppError(400, CHAT_EXTRA_TEXT.invalidIdempotencyKey, CHAT_MESSAGE.invalidIdempotencyKey);
  }
  return value.trim();
}
