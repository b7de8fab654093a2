/**
 * A stand-in for the service's widget API, following its documented contract (docs/widget.md):
 * sessions, messages streamed as server-sent events over POST, the transcript, the events
 * stream with Last-Event-ID, and deleting the conversation. The widget's own files are served by
 * the service's real static plugin (src/http/web-app.ts). It lets the widget be tested in
 * Chromium on its own; every reply is fixed text, so nothing depends on a model.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { webApp } from '../../src/http/web-app.js';

const ROOT = new URL('../..', import.meta.url).pathname;
export const WIDGET_DIR = join(ROOT, 'widget/dist');
export const PUBLISHABLE_KEY = 'pk_test_kursstudio';

interface Message {
  id: string;
  from: 'visitor' | 'bot' | 'person';
  author?: { name: string; avatar_url?: string };
  text: string;
  blocks?: unknown[];
  created_at: string;
}
interface Visitor {
  conversation: Message[];
  events: { id: number; event: string; data: unknown }[];
  listeners: Set<() => void>;
}

export interface FakeWidgetApi {
  baseUrl: string;
  /** Every request to the API, in order. */
  requests: string[];
  /** Requests whose URL carried the token (must stay empty). */
  tokensInUrls: string[];
  /** Requests to the API without an Origin header (must stay empty: a browser always sends it). */
  withoutOrigin: string[];
  /** The Idempotency-Key of each POST /v1/widget/messages, in order. */
  idempotencyKeys: string[];
  close(): Promise<void>;
}

const COURSE_BLOCK = {
  id: '0b6f3c1e-2d4a-4c8e-9f10-1a2b3c4d5e6f',
  type: 'buttons',
  name: 'Kurse',
  items: [
    { id: 'yoga', title: 'Yoga', description: null },
    { id: 'pilates', title: 'Pilates', description: null },
  ],
};

export async function startFakeWidgetApi(allowedOrigin: () => string): Promise<FakeWidgetApi> {
  const app: FastifyInstance = Fastify();
  const visitors = new Map<string, Visitor>();
  const tokens = new Map<string, string>();
  const tokensInUrls: string[] = [];
  const requests: string[] = [];
  const withoutOrigin: string[] = [];
  const idempotencyKeys: string[] = [];
  let eventId = 0;

  await app.register(webApp, { dir: join(ROOT, 'no-web-build'), widgetDir: WIDGET_DIR });

  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/v1/')) return;
    requests.push(`${request.method} ${request.url}`);
    if ([...tokens.keys()].some((token) => request.url.includes(token))) tokensInUrls.push(request.url);
    const origin = request.headers.origin;
    if (!origin) withoutOrigin.push(request.url);
    if (origin !== allowedOrigin()) return reply.status(403).send({ error: 'Herkunft nicht erlaubt' });
    reply.header('access-control-allow-origin', origin);
    reply.header('vary', 'origin');
    if (request.method === 'OPTIONS') {
      return reply
        .header('access-control-allow-methods', 'GET, POST, DELETE')
        .header('access-control-allow-headers', 'authorization, content-type, last-event-id, idempotency-key')
        .header('access-control-max-age', '600')
        .status(204)
        .send();
    }
  });
  app.options('/v1/*', async () => '');

  function visitorOf(request: FastifyRequest, reply: FastifyReply): Visitor | undefined {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const id = token ? tokens.get(token) : undefined;
    const visitor = id ? visitors.get(id) : undefined;
    if (!visitor) void reply.status(401).send({ error: 'Sitzung ungültig' });
    return visitor;
  }
  function push(visitor: Visitor, event: string, data: unknown) {
    visitor.events.push({ id: ++eventId, event, data });
    for (const listener of visitor.listeners) listener();
  }
  function say(visitor: Visitor, from: Message['from'], text: string, blocks?: unknown[]): Message {
    const message: Message = { id: randomUUID(), from, text, created_at: new Date().toISOString() };
    if (blocks) message.blocks = blocks;
    visitor.conversation.push(message);
    return message;
  }

  app.post('/v1/widget/sessions', async (request, reply) => {
    const body = request.body as { publishable_key?: string; visitor_id?: string };
    if (body.publishable_key !== PUBLISHABLE_KEY)
      return reply.status(401).send({ error: 'Schlüssel ungültig' });
    const visitorId =
      body.visitor_id && visitors.has(body.visitor_id) ? body.visitor_id : `v_${randomUUID()}`;
    if (!visitors.has(visitorId))
      visitors.set(visitorId, { conversation: [], events: [], listeners: new Set() });
    const token = `wt_${randomUUID()}`;
    tokens.set(token, visitorId);
    return {
      token,
      expires_at: new Date(Date.now() + 30 * 60_000).toISOString(),
      visitor_id: visitorId,
      conversation_id: null,
      bot: {
        name: 'Kursstudio',
        language: 'de',
        greeting: 'Willkommen im Kursstudio! Fragen Sie nach unseren Kursen.',
        theme: { primary_color: '#1c5fd4', position: 'bottom-right' },
      },
    };
  });

  // The visitor's typing (the real service tells the inbox).
  app.post('/v1/widget/typing', async (request, reply) => {
    if (!visitorOf(request, reply)) return reply;
    return { ok: true };
  });

  app.post('/v1/widget/messages', async (request, reply) => {
    const visitor = visitorOf(request, reply);
    if (!visitor) return reply;
    idempotencyKeys.push(String(request.headers['idempotency-key'] ?? ''));
    const body = request.body as { text?: string; choice?: { block_id: string; item_id: string } };
    let text: string;
    let blocks: unknown[] | undefined;
    let handover = false;
    if (body.choice) {
      const item = COURSE_BLOCK.items.find((i) => i.id === body.choice?.item_id);
      if (body.choice.block_id !== COURSE_BLOCK.id || !item)
        return reply.status(400).send({ error: 'Ungültige Auswahl' });
      say(visitor, 'visitor', item.title);
      text = `Gebucht: ${item.title} am Montag um 18 Uhr. Sie erhalten eine Bestätigung.`;
    } else {
      const message = body.text ?? '';
      say(visitor, 'visitor', message);
      if (/kurs/i.test(message)) {
        text = 'Wir haben diese Kurse. Welcher interessiert Sie?';
        blocks = [COURSE_BLOCK];
      } else if (/mensch/i.test(message)) {
        text = 'Ich verbinde Sie mit unserem Team.';
        handover = true;
      } else {
        text = `Sie schrieben: ${message}. Wie kann ich sonst helfen?`;
      }
    }
    const answer = say(visitor, 'bot', text, blocks);
    const response = {
      reply: text,
      conversation_id: '6a7b8c9d-0000-4000-8000-000000000001',
      message_id: answer.id,
      blocks: blocks ?? [],
      handover,
    };
    if (handover) {
      push(visitor, 'status', { status: 'handover' });
      // Anna types in the inbox, then her reply arrives with her name.
      setTimeout(() => push(visitor, 'typing', { from: 'person', name: 'Anna' }), 300);
      setTimeout(() => {
        const person = say(visitor, 'person', 'Hallo, hier ist Anna vom Kursstudio. Wie kann ich helfen?');
        person.author = { name: 'Anna', avatar_url: `${pictureOrigin(baseUrl)}/team/anna.svg` };
        push(visitor, 'message', person);
      }, 1500);
    }
    // The bot's message also goes out on the events stream (the widget shows it once).
    push(visitor, 'message', answer);
    if (!String(request.headers.accept).includes('text/event-stream')) return response;
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'access-control-allow-origin': String(request.headers.origin),
    });
    const words = text.split(/(?<= )/);
    for (const word of words) {
      reply.raw.write(`event: delta\ndata: ${JSON.stringify({ text: word })}\n\n`);
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    reply.raw.write(`event: done\ndata: ${JSON.stringify(response)}\n\n`);
    reply.raw.end();
    return reply;
  });

  app.get('/v1/widget/conversation', async (request, reply) => {
    const visitor = visitorOf(request, reply);
    if (!visitor) return reply;
    return { messages: visitor.conversation };
  });

  app.delete('/v1/widget/conversation', async (request, reply) => {
    const visitor = visitorOf(request, reply);
    if (!visitor) return reply;
    visitor.conversation = [];
    return reply.status(204).send();
  });

  app.get('/v1/widget/events', async (request, reply) => {
    const visitor = visitorOf(request, reply);
    if (!visitor) return reply;
    // Like the service: no events before the visitor has a conversation.
    if (visitor.conversation.length === 0)
      return reply.status(404).send({ error: 'Unterhaltung nicht gefunden' });
    let last = Number(request.headers['last-event-id'] ?? 0);
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'access-control-allow-origin': String(request.headers.origin),
    });
    const flush = () => {
      for (const event of visitor.events.filter((e) => e.id > last)) {
        reply.raw.write(`id: ${event.id}\nevent: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`);
        last = event.id;
      }
    };
    flush();
    const ping = setInterval(() => reply.raw.write('event: ping\ndata: {}\n\n'), 1000);
    visitor.listeners.add(flush);
    request.raw.on('close', () => {
      clearInterval(ping);
      visitor.listeners.delete(flush);
    });
    return reply;
  });

  // A person's picture, as a team's website would host it.
  app.get('/team/anna.svg', async (_request, reply) =>
    reply
      .type('image/svg+xml')
      .send(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 20"><circle cx="10" cy="10" r="10" fill="#2b8a3e"/></svg>',
      ),
  );
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    baseUrl,
    requests,
    tokensInUrls,
    withoutOrigin,
    idempotencyKeys,
    close: () => app.close(),
  };
}

/**
 * The tenant's website on a second origin: a page with the snippet under the strict
 * Content-Security-Policy the documentation publishes (no unsafe-inline anywhere).
 */
/** Pictures come from the service's port on localhost (the widget shows http pictures only there). */
export const pictureOrigin = (serviceUrl: string) => `http://localhost:${new URL(serviceUrl).port}`;

export async function startHostPage(
  parley: () => string,
): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const app = Fastify();
  app.get('/favicon.ico', async (_request, reply) => reply.status(204).send());
  app.get('/', async (request, reply) => {
    const origin = parley();
    // ?consent: the snippet with the consent gate.
    const consent = 'consent' in (request.query as Record<string, string>) ? ' data-consent="required"' : '';
    return reply
      .header(
        'content-security-policy',
        `default-src 'self'; script-src ${origin}; connect-src ${origin}; style-src ${origin}; img-src ${pictureOrigin(origin)}`,
      )
      .type('text/html; charset=utf-8')
      .send(
        `<!doctype html><html lang="de"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Kursstudio Sonnenschein</title></head>` +
          `<body><header><a href="#kurse">Zu den Kursen</a></header><main><h1>Kursstudio Sonnenschein</h1>` +
          `<p id="kurse">${'Yoga, Pilates und Rückenfit für alle. '.repeat(200)}</p></main>` +
          `<script src="${origin}/widget/v1.js" data-key="${PUBLISHABLE_KEY}"${consent} async></script></body></html>`,
      );
  });
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  return { baseUrl, close: () => app.close() };
}
