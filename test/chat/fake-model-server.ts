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
      model?: string;
      usage?: { prompt_tokens: number; completion_tokens: number };
    }
  | { kind: 'error'; status: number; retryAfter?: string }
  | { kind: 'hang' };

/**
 * A model server on 127.0.0.1 speaking the OpenAI chat-completions protocol (plain and
 * streaming) or, at /v1/messages, the Anthropic Messages protocol. It records every request.
 * Behaviours are consumed one per request from `queue`; `fallback` answers the rest.
 */
export class FakeModelServer {
  readonly requests: RecordedRequest[] = [];
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
        if (req.url?.endsWith('/messages')) this.anthropic(body, behaviour, res);
        else this.openai(body, behaviour, res);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  private openai(
    body: Record<string, unknown>,
    behaviour: Extract<FakeBehaviour, { kind: 'reply' }>,
    res: ServerResponse,
  ) {
    const model = behaviour.model ?? String(body.model);
    const usage = behaviour.usage ?? { prompt_tokens: 11, completion_tokens: 7 };
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const words = behaviour.text.match(/\S+\s*/g) ?? [];
      for (const word of words) {
        const chunk = {
          id: 'c1',
          object: 'chat.completion.chunk',
          created: 1,
          model,
          choices: [{ index: 0, delta: { content: word }, finish_reason: null }],
        };
        res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      }
      const last = {
        id: 'c1',
        object: 'chat.completion.chunk',
        created: 1,
        model,
        choices: [],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      };
      res.write(`data: ${JSON.stringify(last)}\n\n`);
      res.end('data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'c1',
        object: 'chat.completion',
        created: 1,
        model,
        choices: [
          { index: 0, message: { role: 'assistant', content: behaviour.text }, finish_reason: 'stop' },
        ],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      }),
    );
  }

  private anthropic(
    body: Record<string, unknown>,
    behaviour: Extract<FakeBehaviour, { kind: 'reply' }>,
    res: ServerResponse,
  ) {
    const model = behaviour.model ?? String(body.model);
    const usage = behaviour.usage ?? { prompt_tokens: 13, completion_tokens: 5 };
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (event: string, data: object) =>
        res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
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
      });
      send('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'text', text: '' },
      });
      for (const word of behaviour.text.match(/\S+\s*/g) ?? []) {
        send('content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'text_delta', text: word },
        });
      }
      send('content_block_stop', { type: 'content_block_stop', index: 0 });
      send('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: usage.completion_tokens },
      });
      send('message_stop', { type: 'message_stop' });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'm1',
        type: 'message',
        role: 'assistant',
        model,
        content: [{ type: 'text', text: behaviour.text }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens },
      }),
    );
  }

  async stop(): Promise<void> {
    for (const destroy of this.hanging) destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
