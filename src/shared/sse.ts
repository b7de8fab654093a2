import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';

/** Whether the client asked for server-sent events. */
export function wantsEventStream(accept: string | undefined): boolean {
  return typeof accept === 'string' && accept.toLowerCase().includes('text/event-stream');
}

/** One server-sent event: its name and its data as JSON. */
export function sseEvent(name: string, data: unknown, id?: string): string {
  return `${id ? `id: ${id}\n` : ''}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Takes the response over from Fastify and opens it as `text/event-stream`. Headers set so far
 * (request id, RateLimit-*, security headers) go out with the stream. Returns a writer that
 * drops chunks once the response has ended.
 */
export function openEventStream(reply: FastifyReply): (chunk: string) => void {
  reply.hijack();
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
