import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import { noteChatStreamError } from '../../observability/metrics.js';
import type { ChatResponse, StreamSink } from './pipeline/types.js';

/** Whether the client asked for server-sent events. */
export function wantsEventStream(accept: string | undefined): boolean {
  return typeof accept === 'string' && accept.toLowerCase().includes('text/event-stream');
}

export function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Starts the server-sent events response (headers set so far go along); returns its writer. */
export function openStream(reply: FastifyReply): (chunk: string) => void {
  reply.hijack();
  // Headers set so far (request id, RateLimit-*) go out with the stream.
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(reply.getHeaders()))
    if (value !== undefined) headers[name] = value;
  reply.raw.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // Reverse proxies (nginx) would otherwise buffer the stream.
    'x-accel-buffering': 'no',
  });
  return (chunk) => {
    if (!reply.raw.writableEnded) reply.raw.write(chunk);
  };
}

/**
 * The chat as server-sent events, an output port of the conversation engine: `delta` events
 * with text as the model produces it, then one `done` event with the whole response object
 * (the same as the JSON answer; its `reply` is authoritative, as extensions may rewrite the
 * text), or an `error` event. The stream opens only when the model's first event is there, so
 * every error before is an ordinary JSON error response with its status.
 */
export function eventStream(reply: FastifyReply): StreamSink {
  let write: ((chunk: string) => void) | undefined;
  const open = () => (write ??= openStream(reply));
  return {
    replay(response: ChatResponse) {
      reply.header('idempotent-replayed', 'true');
      open()(sseEvent('delta', { text: response.reply }));
      open()(sseEvent('done', response));
    },
    open: () => void open(),
    delta: (text) => open()(sseEvent('delta', { text })),
    done: (response) => open()(sseEvent('done', response)),
    fail(body) {
      noteChatStreamError(reply.request, body.error);
      open()(sseEvent('error', body));
    },
    close() {
      if (write) reply.raw.end();
    },
  };
}

/** A signal that aborts when the client goes away before its response was sent. */
export function abortOnDisconnect(reply: FastifyReply): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) controller.abort();
  };
  reply.raw.on('close', onClose);
  return { signal: controller.signal, dispose: () => reply.raw.off('close', onClose) };
}
