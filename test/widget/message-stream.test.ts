import { AppError } from '../../src/http/errors.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatResponse } from '../../src/modules/chat/pipeline/types.js';
import { MESSAGE_HEARTBEAT_MS, widgetMessageStream } from '../../src/modules/widget/message-stream.js';

const RESPONSE = { reply: 'Hallo!', conversation_id: 'c' } as ChatResponse;

function target() {
  const chunks: string[] = [];
  let ended = false;
  return {
    chunks,
    ended: () => ended,
    open: () => (chunk: string) => chunks.push(chunk),
    end: () => {
      ended = true;
    },
  };
}

describe('widget message stream (pure port)', () => {
  afterEach(() => vi.useRealTimers());

  it('gives every event an id: deltas the anchor, done the stored reply with message_id', async () => {
    const t = target();
    const sink = widgetMessageStream({ ...t, anchorId: 'm-1', replyId: async () => 'm-3' });
    sink.open();
    sink.delta('Hal');
    sink.delta('lo!');
    sink.done(RESPONSE);
    sink.close();
    await vi.waitFor(() => expect(t.ended()).toBe(true));
    expect(t.chunks).toEqual([
      'id: m-1\nevent: delta\ndata: {"text":"Hal"}\n\n',
      'id: m-1\nevent: delta\ndata: {"text":"lo!"}\n\n',
      `id: m-3\nevent: done\ndata: ${JSON.stringify({ ...RESPONSE, message_id: 'm-3' })}\n\n`,
    ]);
  });

  it('a new conversation has no anchor: deltas without id; an error keeps the anchor', async () => {
    const t = target();
    const sink = widgetMessageStream({ ...t, anchorId: undefined, replyId: async () => undefined });
    sink.delta('x');
    sink.fail(new AppError(503, 'Modell nicht erreichbar'));
    sink.close();
    await vi.waitFor(() => expect(t.ended()).toBe(true));
    expect(t.chunks[0]).toBe('event: delta\ndata: {"text":"x"}\n\n');
    expect(t.chunks[1]).toBe('event: error\ndata: {"error":"Modell nicht erreichbar"}\n\n');
  });

  it('sends a comment ping every 15 s while open, and none after close', async () => {
    vi.useFakeTimers();
    const t = target();
    const sink = widgetMessageStream({ ...t, anchorId: 'm-1', replyId: async () => 'm-2' });
    sink.open();
    vi.advanceTimersByTime(MESSAGE_HEARTBEAT_MS - 1);
    expect(t.chunks).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(t.chunks).toEqual([': ping\n\n']);
    vi.advanceTimersByTime(MESSAGE_HEARTBEAT_MS);
    expect(t.chunks).toEqual([': ping\n\n', ': ping\n\n']);
    sink.close();
    vi.advanceTimersByTime(MESSAGE_HEARTBEAT_MS * 3);
    expect(t.chunks).toHaveLength(2);
    expect(MESSAGE_HEARTBEAT_MS).toBe(15_000);
  });

  it('a stream that never opened writes and ends nothing', async () => {
    const t = target();
    const sink = widgetMessageStream({ ...t, anchorId: 'm-1', replyId: async () => 'm-2' });
    sink.close();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(t.chunks).toEqual([]);
    expect(t.ended()).toBe(false);
  });
});
