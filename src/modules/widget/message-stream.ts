/**
 * The stream port of POST /v1/widget/messages (`Accept: text/event-stream`): the chat's
 * `delta` / `done` / `error` events, each with an event id, and a heartbeat comment
 * (`: ping`) every 15 seconds while the stream is open, so proxies and the widget know it lives.
 *
 * Event ids are message ids to resume from on GET /v1/widget/events: the deltas and an error
 * carry the id of the conversation's last message before this exchange (none in a new
 * conversation), `done` the id of the stored reply (also in its data as `message_id`). A client
 * that lost the stream opens the events stream with `Last-Event-ID` set to the last id it got
 * and receives the visitor's message and the reply once stored; without an id it reads the
 * transcript.
 */
import { chatErrorBody } from '../../http/chat-refusal.js';
import type { ChatErrorBody, ChatResponse, StreamSink } from '../chat/index.js';
import { sseEvent } from '../../shared/sse.js';

export const MESSAGE_HEARTBEAT_MS = 15_000;

export interface MessageStreamOptions {
  /** Opens the response and returns its writer. */
  open(): (chunk: string) => void;
  /** Ends the response. */
  end(): void;
  /** The conversation's last message id before this exchange, when there is one. */
  anchorId: string | undefined;
  /** The id of the stored reply of the exchange. */
  replyId(response: ChatResponse): Promise<string | undefined>;
  heartbeatMs?: number;
  /** Told of an error event (metrics). */
  onError?(body: ChatErrorBody): void;
}

export function widgetMessageStream(options: MessageStreamOptions): StreamSink {
  let write: ((chunk: string) => void) | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let closed = false;
  // done looks its id up before it is written; close waits for it.
  let pending: Promise<void> = Promise.resolve();
  const every = options.heartbeatMs ?? MESSAGE_HEARTBEAT_MS;

  const arm = () => {
    heartbeat = setTimeout(() => {
      if (closed) return;
      write?.(': ping\n\n');
      arm();
    }, every);
    heartbeat.unref?.();
  };
  const open = () => {
    if (!write) {
      write = options.open();
      arm();
    }
    return write;
  };
  const withId = (id: string | undefined, name: string, data: unknown) =>
    `${id ? `id: ${id}\n` : ''}${sseEvent(name, data)}`;

  return {
    replay(response: ChatResponse) {
      open()(withId(options.anchorId, 'delta', { text: response.reply }));
      open()(withId(options.anchorId, 'done', response));
    },
    open: () => void open(),
    delta: (text) => open()(withId(options.anchorId, 'delta', { text })),
    done(response) {
      const writer = open();
      pending = options
        .replyId(response)
        .catch(() => undefined)
        .then((id) =>
          writer(withId(id ?? options.anchorId, 'done', id ? { ...response, message_id: id } : response)),
        );
    },
    fail(error: unknown) {
      const body = chatErrorBody(error);
      options.onError?.(body);
      open()(withId(options.anchorId, 'error', body));
    },
    close() {
      closed = true;
      clearTimeout(heartbeat);
      if (write) void pending.finally(() => options.end());
    },
  };
}
