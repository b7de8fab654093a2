import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/http/errors.js';
import { requestFingerprint } from '../../src/modules/chat/idempotency.js';
import { quotaPeriod, quotaRemaining } from '../../src/modules/chat/quota.js';
import {
  normalizeChannel,
  parseChatRequest,
  parseIdempotencyKey,
  type ChatInput,
} from '../../src/modules/chat/request.js';

function errorOf(fn: () => unknown): { status: number; error: string } | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { status: error.statusCode, error: error.error };
  }
}

describe('parseChatRequest: the specification’s texts in its order', () => {
  const cases: [string, unknown, string][] = [
    ['no body', undefined, 'Nachricht erforderlich'],
    ['null body', null, 'Nachricht erforderlich'],
    ['array body', [{ message: 'x' }], 'Nachricht erforderlich'],
    ['string body', 'hello', 'Nachricht erforderlich'],
    ['missing message', { sender_id: 'a' }, 'Nachricht erforderlich'],
    ['empty message', { message: '' }, 'Nachricht erforderlich'],
    ['blank message', { message: '   \n' }, 'Nachricht erforderlich'],
    ['number message', { message: 42 }, 'Nachricht erforderlich'],
    ['object message', { message: { text: 'hi' } }, 'Nachricht erforderlich'],
    ['message of 10001 characters', { message: 'a'.repeat(10001) }, 'Nachricht zu lang'],
    ['too long beats bad sender_id', { message: 'a'.repeat(10001), sender_id: 5 }, 'Nachricht zu lang'],
    ['missing message beats bad sender_id', { sender_id: 5 }, 'Nachricht erforderlich'],
    ['number sender_id', { message: 'hi', sender_id: 5 }, 'Ungültige sender_id'],
    ['object sender_id', { message: 'hi', sender_id: {} }, 'Ungültige sender_id'],
    ['sender_id of 256 characters', { message: 'hi', sender_id: 's'.repeat(256) }, 'Ungültige sender_id'],
    ['bad sender_id beats bad metadata', { message: 'hi', sender_id: 1, metadata: 3 }, 'Ungültige sender_id'],
    ['array metadata', { message: 'hi', metadata: [1] }, 'Ungültige metadata'],
    ['string metadata', { message: 'hi', metadata: 'x' }, 'Ungültige metadata'],
    ['oversized metadata', { message: 'hi', metadata: { x: 'y'.repeat(17 * 1024) } }, 'Ungültige metadata'],
    ['unknown field', { message: 'hi', stream: true }, 'Unbekanntes Feld'],
  ];
  it.each(cases)('%s → 400 %s', (_name, body, text) => {
    expect(errorOf(() => parseChatRequest(body))).toEqual({ status: 400, error: text });
  });

  it('accepts the limits exactly and counts characters, not UTF-16 units', () => {
    expect(parseChatRequest({ message: 'a'.repeat(10000), sender_id: 's'.repeat(255) }).message).toHaveLength(
      10000,
    );
    // 10000 emoji are 20000 UTF-16 units but 10000 characters.
    expect(() => parseChatRequest({ message: '😀'.repeat(10000) })).not.toThrow();
    expect(errorOf(() => parseChatRequest({ message: '😀'.repeat(10001) }))?.error).toBe('Nachricht zu lang');
  });

  it('normalises the optional fields', () => {
    const parsed = parseChatRequest({
      message: 'Hallo',
      sender_id: null,
      channel: 'sms',
      conversation_id: null,
      metadata: null,
    });
    expect(parsed).toEqual<ChatInput>({
      message: 'Hallo',
      senderId: null,
      channel: 'api',
      conversationId: null,
      metadata: {},
    });
    const full = parseChatRequest({
      message: 'Hallo',
      sender_id: 'kunde-7',
      channel: 'email',
      conversation_id: 'not-a-uuid',
      metadata: { source: 'n8n' },
    });
    expect(full).toMatchObject({ senderId: 'kunde-7', channel: 'email', conversationId: 'not-a-uuid' });
    expect(full.metadata).toEqual({ source: 'n8n' });
    // A non-string conversation_id is kept as text; it can never match, so the chat answers 404.
    expect(parseChatRequest({ message: 'x', conversation_id: 12 }).conversationId).toBe('12');
  });
});

describe('normalizeChannel', () => {
  it.each([
    ['email', 'email'],
    ['api', 'api'],
    ['webhook', 'webhook'],
    ['EMAIL', 'api'],
    ['whatsapp', 'api'],
    ['', 'api'],
    [undefined, 'api'],
    [null, 'api'],
    [7, 'api'],
    [['email'], 'api'],
  ])('%j → %s', (value, expected) => {
    expect(normalizeChannel(value)).toBe(expected);
  });
});

describe('parseIdempotencyKey', () => {
  it('accepts 1–255 visible ASCII characters and nothing else', () => {
    expect(parseIdempotencyKey(undefined)).toBeNull();
    expect(parseIdempotencyKey('order-4711')).toBe('order-4711');
    expect(parseIdempotencyKey('k'.repeat(255))).toHaveLength(255);
    for (const bad of ['', 'k'.repeat(256), 'mit leerzeichen', 'ümlaut']) {
      expect(errorOf(() => parseIdempotencyKey(bad))).toEqual({
        status: 400,
        error: 'Ungültiger Idempotency-Key',
      });
    }
  });
});

describe('requestFingerprint', () => {
  const input: ChatInput = {
    message: 'Hi',
    senderId: null,
    channel: 'api',
    conversationId: null,
    metadata: { a: 1, b: 2 },
  };
  it('ignores key order in metadata and changes with any field', () => {
    const bot = '7f1c1c1e-1111-4111-8111-111111111111';
    expect(requestFingerprint(bot, input)).toBe(
      requestFingerprint(bot, { ...input, metadata: { b: 2, a: 1 } }),
    );
    expect(requestFingerprint(bot, input)).not.toBe(requestFingerprint(bot, { ...input, message: 'Hi!' }));
    expect(requestFingerprint(bot, input)).not.toBe(requestFingerprint(bot, { ...input, channel: 'email' }));
    expect(requestFingerprint(bot, input)).not.toBe(
      requestFingerprint('7f1c1c1e-2222-4111-8111-111111111111', input),
    );
  });
});

describe('quota arithmetic', () => {
  it.each([
    ['2026-01-31T23:59:59Z', '2026-01-01'],
    ['2026-02-01T00:00:00Z', '2026-02-01'],
    ['2026-12-15T12:00:00+05:00', '2026-12-01'],
    // Still November in UTC although December in Berlin.
    ['2026-11-30T23:30:00Z', '2026-11-01'],
  ])('period of %s is %s', (now, period) => {
    expect(quotaPeriod(new Date(now))).toBe(period);
  });

  it.each([
    [null, 5, null],
    [10, 3, 7],
    [10, 10, 0],
    [10, 12, 0],
  ])('quota %s, used %s → remaining %s', (quota, used, remaining) => {
    expect(quotaRemaining(quota, used)).toBe(remaining);
  });
});
