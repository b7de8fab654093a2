import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../shared/context.js';
import { chatTraceOf } from '../../observability/chat-trace.js';
import { answer, converse } from './pipeline/engine.js';
import type { ChatResponse, InboundMessage, StreamSink } from './pipeline/types.js';
import { abortOnDisconnect, eventStream, wantsEventStream } from './sse.js';

/**
 * The HTTP delivery of the chat routes (the API's and the dashboard's test chat): runs the
 * message through the conversation engine with the client's disconnect as its signal and the
 * request's trace as its observer, and answers as JSON or, with `Accept: text/event-stream`,
 * as server-sent events. The routes differ only in how they authenticate (and the widget in
 * the stream's event ids and heartbeat).
 */
export async function answerChat(
  ctx: AppContext,
  inbound: InboundMessage,
  request: FastifyRequest,
  reply: FastifyReply,
  /** The stream port when the client asks for events (a channel's own; the chat's by default). */
  sink?: (reply: FastifyReply) => StreamSink,
): Promise<ChatResponse | undefined> {
  const disconnect = abortOnDisconnect(reply);
  const options = { signal: disconnect.signal, log: request.log, observer: chatTraceOf(request) };
  try {
    if (wantsEventStream(request.headers.accept)) {
      await converse(ctx, inbound, { stream: (sink ?? eventStream)(reply) }, options);
      return undefined;
    }
    const outcome = await answer(ctx, inbound, options);
    if (outcome.replayed) reply.header('idempotent-replayed', 'true');
    return outcome.response;
  } finally {
    disconnect.dispose();
  }
}
