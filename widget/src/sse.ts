/** One server-sent event as the widget uses it. */
export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

/**
 * An incremental parser of a text/event-stream body (the HTML standard's rules): fed chunks of
 * text as they arrive, it returns the events that are complete. Comments (`:` lines) count as
 * activity but give no event; `id` is remembered for resuming with `Last-Event-ID`.
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private id: string | undefined;
  /** The last `id` the stream sent (kept across events, as the standard says). */
  lastEventId: string | undefined;

  feed(chunk: string): SseEvent[] {
    this.buffer += chunk;
    const events: SseEvent[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // A lone \r at the end may be the first half of \r\n: wait for the next chunk.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') {
      if (this.data.length === 0) {
        this.event = '';
        return undefined;
      }
      const event: SseEvent = { event: this.event || 'message', data: this.data.join('\n'), id: this.id };
      this.data = [];
      this.event = '';
      return event;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) {
      this.id = value;
      this.lastEventId = value;
    }
    return undefined;
  }
}

/** Parses an event's JSON data; undefined when it is not JSON. */
export function eventJson<T>(event: SseEvent): T | undefined {
  try {
    return JSON.parse(event.data) as T;
  } catch {
    return undefined;
  }
}
