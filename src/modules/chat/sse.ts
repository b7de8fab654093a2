import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError, CHAT_TEXT } from '../../http/errors.js';
import { noteChatStreamError } from '../../observability/metrics.js';
import { ModelUnavailableError, type ModelStreamEvent } from '../models/provider.js';
import {
  abandonChat,
  failChat,
  finishChat,
  modelFailure,
  noteModelChoice,
  pastDeadline,
  startChat,
  type ChatCall,
  type ChatResponse,
} from './service.js';

/** Whether the client asked for server-sent events. */
export function wantsEventStream(accept: string | undefined): boolean {
  return typeof accept === 'string' && accept.toLowerCase().includes('text/event-stream');
}

export function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

function openStream(reply: FastifyReply): (chunk: string) => void {
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

function errorBody(error: unknown): { error: string; message?: string } {
  const mapped = error instanceof ModelUnavailableError ? modelFailure(error) : error;
  if (mapped instanceof AppError) {
    return mapped.hasMessage ? { error: mapped.error, message: mapped.message } : { error: mapped.error };
  }
  return { error: CHAT_TEXT.internal };
}

function replayStream(reply: FastifyReply, response: ChatResponse): void {
  reply.header('idempotent-replayed', 'true');
  const write = openStream(reply);
  write(sseEvent('delta', { text: response.reply }));
  write(sseEvent('done', response));
  reply.raw.end();
}

/**
 * The chat as server-sent events: `delta` events with text as the model produces it, then
 * one `done` event with the whole response object (the same as the JSON answer; its `reply`
 * is authoritative, as extensions may rewrite the text). Every check runs before the stream
 * opens, and so does the model's first answer: errors until then are ordinary JSON error
 * responses with their status. A failure after that ends the stream with an `error` event,
 * nothing is stored and the quota reservation is given back. When the client disconnects,
 * the model call is aborted, and nothing is stored or charged either.
 */
export async function streamChat(ctx: AppContext, call: ChatCall, reply: FastifyReply): Promise<void> {
  const disconnect = abortOnDisconnect(reply);
  try {
    await streamStarted(ctx, call, reply, disconnect.signal);
  } finally {
    disconnect.dispose();
  }
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

async function streamStarted(
  ctx: AppContext,
  call: ChatCall,
  reply: FastifyReply,
  disconnected: AbortSignal,
): Promise<void> {
  const started = await startChat(ctx, call, disconnected);
  if (started.kind === 'replay') return replayStream(reply, started.response);
  const { prepared } = started;
  const trace = call.trace;
  noteModelChoice(ctx, prepared);

  let finished = false;
  let iterator: AsyncIterator<ModelStreamEvent>;
  let next: IteratorResult<ModelStreamEvent>;
  // The model stage runs from the call to the stream's final event.
  trace?.begin('model');
  try {
    iterator = prepared.model.stream(prepared.modelRequest)[Symbol.asyncIterator]();
    next = await iterator.next();
  } catch (error) {
    trace?.end('model', undefined, error);
    return failChat(ctx, prepared, error);
  }

  const write = openStream(reply);
  try {
    while (!next.done) {
      const event = next.value;
      if (event.type === 'delta') {
        write(sseEvent('delta', { text: event.text }));
      } else {
        trace?.end('model');
        // The client left (or the deadline passed) while the model finished: nothing is stored.
        prepared.modelRequest.signal?.throwIfAborted();
        const response = await finishChat(ctx, prepared, event.reply);
        finished = true;
        write(sseEvent('done', response));
        break;
      }
      next = await iterator.next();
    }
    if (!finished) throw new Error('model stream ended without a final event');
  } catch (caught) {
    trace?.end('model', undefined, caught);
    if (!finished) await abandonChat(ctx, prepared);
    const error = pastDeadline(ctx, prepared) ?? caught;
    if (error instanceof ModelUnavailableError) {
      call.log?.warn({ provider: error.provider, reason: error.message }, 'model unavailable during stream');
    } else if (!(error instanceof AppError) && !disconnected.aborted) {
      call.log?.error({ err: error }, 'chat stream failed');
    }
    const body = errorBody(error);
    noteChatStreamError(reply.request, body.error);
    write(sseEvent('error', body));
  } finally {
    reply.raw.end();
  }
}
