import { describe, expect, it } from 'vitest';
import { SseParser, eventJson } from '../src/sse.js';

describe('SseParser', () => {
  it('parses named events with JSON data and ids', () => {
    const parser = new SseParser();
    const events = parser.feed('id: 7\nevent: message\ndata: {"text":"Hallo"}\n\nevent: ping\ndata: {}\n\n');
    expect(events).toEqual([
      { event: 'message', data: '{"text":"Hallo"}', id: '7' },
      { event: 'ping', data: '{}', id: '7' },
    ]);
    expect(parser.lastEventId).toBe('7');
    expect(eventJson<{ text: string }>(events[0]!)).toEqual({ text: 'Hallo' });
  });

  it('joins an event split across chunks at any byte, also between \\r and \\n', () => {
    const stream =
      'event: delta\r\ndata: {"text":"Ein "}\r\n\r\nevent: done\r\ndata: {"reply":"Ein Kurs"}\r\n\r\n';
    for (let cut = 1; cut < stream.length; cut++) {
      const parser = new SseParser();
      const events = [...parser.feed(stream.slice(0, cut)), ...parser.feed(stream.slice(cut))];
      expect(
        events.map((e) => e.event),
        `cut at ${cut}`,
      ).toEqual(['delta', 'done']);
      expect(events[1]!.data).toBe('{"reply":"Ein Kurs"}');
    }
  });

  it('joins multi-line data with newlines; a missing event name is "message"', () => {
    expect(new SseParser().feed('data: eins\ndata: zwei\n\n')).toEqual([
      { event: 'message', data: 'eins\nzwei', id: undefined },
    ]);
  });

  it('ignores comments (heartbeats) and blank events; keeps the last id for resuming', () => {
    const parser = new SseParser();
    expect(parser.feed(': ping\n\n')).toEqual([]);
    expect(parser.feed('id: 41\n\n')).toEqual([]);
    expect(parser.lastEventId).toBe('41');
    expect(parser.feed('data: x\n\n')[0]!.id).toBe('41');
  });

  it('takes a field without a colon as an empty value and only one leading space off', () => {
    const events = new SseParser().feed('data\ndata:  zwei Leerzeichen\n\n');
    expect(events[0]!.data).toBe('\n zwei Leerzeichen');
  });

  it('does not emit an event that has not ended yet', () => {
    const parser = new SseParser();
    expect(parser.feed('event: done\ndata: {"reply":"x"}\n')).toEqual([]);
    expect(parser.feed('\n')).toHaveLength(1);
  });

  it('eventJson gives undefined for data that is not JSON', () => {
    expect(eventJson({ event: 'message', data: 'kein json', id: undefined })).toBeUndefined();
  });
});
