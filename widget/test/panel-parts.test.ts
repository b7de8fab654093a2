import { describe, expect, it } from 'vitest';
import { ShownMessages } from '../src/session.js';
import { ApiError, sendOnce, type BotResponse } from '../src/transport.js';

describe('ShownMessages', () => {
  it('shows a message with an id once, one without every time', () => {
    const shown = new ShownMessages();
    expect(shown.show('m1')).toBe(true);
    expect(shown.show('m1')).toBe(false);
    expect(shown.show(undefined)).toBe(true);
    expect(shown.show(undefined)).toBe(true);
    shown.clear();
    expect(shown.show('m1')).toBe(true);
  });

  it('takes the events echo of a reply just shown as shown, once', () => {
    const shown = new ShownMessages();
    shown.replied('Gerne.');
    expect(shown.isEcho({ id: 'e1', from: 'bot', text: 'Gerne.' })).toBe(true);
    expect(shown.has('e1')).toBe(true);
    expect(shown.isEcho({ id: 'e2', from: 'bot', text: 'Gerne.' })).toBe(false);
    shown.replied('Hallo');
    expect(shown.isEcho({ id: 'p1', from: 'person', text: 'Hallo' })).toBe(false);
  });

  it('remembers the last five replies only', () => {
    const shown = new ShownMessages();
    for (const text of ['1', '2', '3', '4', '5', '6']) shown.replied(text);
    expect(shown.isEcho({ from: 'bot', text: '1' })).toBe(false);
    expect(shown.isEcho({ from: 'bot', text: '6' })).toBe(true);
  });
});

describe('sendOnce', () => {
  const reply: BotResponse = { reply: 'ok' };

  it('retries a network failure once with the same key', async () => {
    const keys: string[] = [];
    let retried = 0;
    const result = await sendOnce(
      async (key) => {
        keys.push(key);
        if (keys.length === 1) throw new TypeError('Failed to fetch');
        return reply;
      },
      () => (retried += 1),
    );
    expect(result).toBe(reply);
    expect(retried).toBe(1);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[0]).toMatch(/^wm_[0-9a-f]{32}$/);
  });

  it('does not retry a refusal of the service', async () => {
    let calls = 0;
    const error = await sendOnce(
      async () => {
        calls += 1;
        throw new ApiError(429, 'Zu viele Nachrichten');
      },
      () => undefined,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(calls).toBe(1);
  });

  it('gives a fresh key to every message', async () => {
    const keys: string[] = [];
    await sendOnce(
      async (key) => (keys.push(key), reply),
      () => undefined,
    );
    await sendOnce(
      async (key) => (keys.push(key), reply),
      () => undefined,
    );
    expect(keys[0]).not.toBe(keys[1]);
  });
});
