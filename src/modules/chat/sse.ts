import type { FastifyReply } from 'fastify';
import { chatErrorBody } from '../../http/chat-refusal.js';
import { noteChatRefusal, noteChatStreamError } from '../../observability/metrics.js';
import { EngineRefusal } from '../../shared/refusal.js';
import { openEventStream, sseEvent } from '../../shared/sse.js';
import type { ChatResponse, StreamSink } from './pipeline/types.js';

export { wantsEventStream } from '../../shared/sse.js';

/**
 * The chat as server-sent events, an output port of the conversation engine: `delta` events
 * with text as the model produces it, then one `done` event with the whole response object
 * (the same as the JSON answer; its `reply` is authoritative, as extensions may rewrite the
 * text), or an `error` event. The stream opens only when the model's first event is there, so
 * every error before is an ordinary JSON error response with its status.
 */
export function eventStream(reply: FastifyReply): StreamSink {
  let write: ((chunk: string) => void) | undefined;
  const open = () => (write ??= openEventStream(reply));
  return {
    replay(response: ChatResponse) {
      reply.header('idempotent-replayed', 'true');
      open()(sseEvent('delta', { text: response.reply }));
      open()(sseEvent('done', response));
    },
    open: () => void open(),
    delta: (text) => open()(sseEvent('delta', { text })),
    done: (response) => open()(sseEvent('done', response)),
    fail(error) {
      const body = chatErrorBody(error);
      if (error instanceof EngineRefusal) noteChatRefusal(reply.request, error.reason);
      else noteChatStreamError(reply.request, body.error);
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
