import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export type FakeBehaviour =
  | {
      kind: 'reply';
      text: string;
      /** Streaming: the deltas, in place of one per word of `text` (their join is `text`). */
      chunks?: string[];
      model?: string;
      usage?: { prompt_tokens: number; completion_tokens: number };
    }
  | { kind: 'error'; status: number; retryAfter?: string }
  | { kind: 'hang' }
  /** Answers normally after `ms`. */
  | { kind: 'delay'; ms: number; text: string }
  /** Sends the headers (and, with `after: 'first-delta'`, the first part of the body), then nothing. */
  | { kind: 'stall'; after: 'headers' | 'first-delta'; text?: string }
  /** 200 with a body that is not JSON (plain) or an event that is not JSON (streaming). */
  | { kind: 'malformed' }
  /** The first part of the body, then the connection is destroyed. */
  | { kind: 'cut'; text?: string }
  /** Streaming: every delta, then a clean end without finish_reason/[DONE] or message_stop. */
  | { kind: 'unfinished'; text?: string }
  /** Streaming: one delta every `intervalMs`, then the normal end; stops when the caller hangs up. */
  | { kind: 'trickle'; intervalMs: number; text: string };

/** A response in parts: the JSON body, or the stream's opening events, deltas and closing events. */
interface Rendered {
  json: string;
  head: string[];
  deltas: string[];
  tail: string[];
}

const FALLBACK_TEXT = 'Antwort vom Testmodell mit mehreren Wörtern.';

/** A streamed reply's deltas: the given chunks, else one per word. */
function deltasOf(reply: Extract<FakeBehaviour, { kind: 'reply' }>): string[] {
  return reply.chunks ?? reply.text.match(/\S+\s*/g) ?? [];
}

/**
 * A model server on 127.0.0.1 speaking the OpenAI chat-completions protocol (plain and
 * streaming) or, at /v1/messages, the Anthropic Messages protocol. It records every request.
 * Behaviours are consumed one per request from `queue`; `fallback` answers the rest.
 */
export class FakeModelServer {
  readonly requests: RecordedRequest[] = [];
  /** Responses whose caller hung up before the response was complete. */
  abandoned = 0;
  queue: FakeBehaviour[] = [];
  fallback: FakeBehaviour = { kind: 'reply', text: 'Antwort vom Testmodell.' };
  private server?: Server;
  private readonly hanging = new Set<() => void>();

  get url(): string {
    const address = this.server?.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
        this.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
        const behaviour = this.queue.shift() ?? this.fallback;
        this.respond(req, body, behaviour, res);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  private respond(
    req: IncomingMessage,
    body: Record<string, unknown>,
    behaviour: FakeBehaviour,
    res: ServerResponse,
  ) {
    if (behaviour.kind === 'hang') {
      this.hanging.add(() => res.destroy());
      return;
    }
    if (behaviour.kind === 'error') {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (behaviour.retryAfter) headers['retry-after'] = behaviour.retryAfter;
      res.writeHead(behaviour.status, headers);
      res.end(JSON.stringify({ error: { message: 'fake failure', type: 'server_error' } }));
      return;
    }
    if (behaviour.kind === 'delay') {
      const timer = setTimeout(
        () => this.respond(req, body, { kind: 'reply', text: behaviour.text }, res),
        behaviour.ms,
      );
      this.hanging.add(() => clearTimeout(timer));
      return;
    }
    const anthropic = req.url?.endsWith('/messages') ?? false;
    const reply: Extract<FakeBehaviour, { kind: 'reply' }> =
      behaviour.kind === 'reply'
        ? behaviour
        : { kind: 'reply', text: ('text' in behaviour && behaviour.text) || FALLBACK_TEXT };
    const rendered = anthropic ? this.anthropic(body, reply) : this.openai(body, reply);
    const stream = Boolean(body.stream);
    res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
    const hang = () => this.hanging.add(() => res.destroy());
    const half = rendered.json.slice(0, Math.floor(rendered.json.length / 2));
    switch (behaviour.kind) {
      case 'reply':
        if (stream) res.end([...rendered.head, ...rendered.deltas, ...rendered.tail].join(''));
        else res.end(rendered.json);
        return;
      case 'stall':
        res.flushHeaders();
        if (behaviour.after === 'first-delta')
          res.write(stream ? rendered.head.join('') + rendered.deltas[0] : half);
        hang();
        return;
      case 'malformed':
        res.end(
          stream ? `${rendered.head.join('')}data: {"choices": [{"delta": \n\n` : '{"id": "c1", "choices": [',
        );
        return;
      case 'cut':
        res.write(stream ? rendered.head.join('') + rendered.deltas[0] : half);
        setTimeout(() => res.destroy(), 20);
        return;
      case 'unfinished':
        res.end(stream ? [...rendered.head, ...rendered.deltas].join('') : half);
        return;
      case 'trickle': {
        const parts = stream ? [...rendered.deltas, rendered.tail.join('')] : [rendered.json];
        res.flushHeaders();
        if (stream) res.write(rendered.head.join(''));
        const timer = setInterval(() => {
          const part = parts.shift();
          if (part === undefined) return;
          if (parts.length > 0) res.write(part);
          else {
            clearInterval(timer);
            res.end(part);
          }
        }, behaviour.intervalMs);
        res.on('close', () => {
          clearInterval(timer);
          if (!res.writableFinished) this.abandoned += 1;
        });
        this.hanging.add(() => clearInterval(timer));
        return;
      }
    }
  }

  private openai(
    body: Record<string, unknown>,
    behaviour: Extract<FakeBehaviour, { kind: 'reply' }>,
  ): Rendered {
    const model = behaviour.model ?? String(body.model);
    const usage = behaviour.usage ?? { prompt_tokens: 11, completion_tokens: 7 };
    const chunk = (choices: unknown[], extra: object = {}) =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model, choices, ...extra })}\n\n`;
    const words = deltasOf(behaviour);
    return {
      head: [],
      deltas: words.map((word) => chunk([{ index: 0, delta: { content: word }, finish_reason: null }])),
      tail: [
        chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
        chunk([], { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }),
        'data: [DONE]\n\n',
      ],
      json: JSON.stringify({
        id: 'c1',
        object: 'chat.completion',
        created: 1,
        model,
        choices: [
          { index: 0, message: { role: 'assistant', content: behaviour.text }, finish_reason: 'stop' },
        ],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      }),
    };
  }

  private anthropic(
    body: Record<string, unknown>,
    behaviour: Extract<FakeBehaviour, { kind: 'reply' }>,
  ): Rendered {
    const model = behaviour.model ?? String(body.model);
    const usage = behaviour.usage ?? { prompt_tokens: 13, completion_tokens: 5 };
    const send = (event: string, data: object) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    return {
      head: [
        send('message_start', {
          type: 'message_start',
          message: {
            id: 'm1',
            type: 'message',
            role: 'assistant',
            model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: usage.prompt_tokens, output_tokens: 1 },
          },
        }),
        send('content_block_start', {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'text', text: '' },
        }),
      ],
      deltas: deltasOf(behaviour).map((word) =>
        send('content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'text_delta', text: word },
        }),
      ),
      tail: [
        send('content_block_stop', { type: 'content_block_stop', index: 0 }),
        send('message_delta', {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { output_tokens: usage.completion_tokens },
        }),
        send('message_stop', { type: 'message_stop' }),
      ],
      json: JSON.stringify({
        id: 'm1',
        type: 'message',
        role: 'assistant',
        model,
        content: [{ type: 'text', text: behaviour.text }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens },
      }),
    };
  }

  async stop(): Promise<void> {
    for (const destroy of this.hanging) destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
