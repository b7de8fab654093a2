import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';

interface Operation {
  operationId?: string;
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> };
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  responses?: Record<string, unknown>;
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components?: { securitySchemes?: Record<string, unknown>; schemas?: Record<string, unknown> };
  tags?: { name: string }[];
  servers?: { url: string }[];
}

/** Routes of the documentation itself, not of the service. */
const DOCUMENTATION_ROUTES = [/^\/docs(\/|$)/, /^\/openapi\.json$/];
/** Routes that take no credentials by design. */
/** Routes that need no credentials: the sign-in, and an invitation link's preview and acceptance (the link's token). */
const PUBLIC_ROUTES = new Set([
  'POST /api/auth/login',
  'POST /api/invitations/preview',
  'POST /api/invitations/accept',
  // The widget: a session starts with the publishable key (body); CORS preflights carry nothing.
  'POST /v1/widget/sessions',
  'OPTIONS /v1/widget/sessions',
  'OPTIONS /v1/widget/sessions/refresh',
  'OPTIONS /v1/widget/messages',
  'OPTIONS /v1/widget/conversation',
  'OPTIONS /v1/widget/events',
  'OPTIONS /v1/widget/typing',
  'OPTIONS /v1/widget/reply-address',
  'OPTIONS /v1/widget/rating',
]);

/**
 * Every (method, path) the router serves, read from Fastify's route tree. Each line of
 * `printRoutes({ commonPrefix: false })` is a path segment indented under its parent, with
 * the methods in parentheses; HEAD is added by Fastify for every GET and is left out.
 */
export function parseRouteTree(tree: string): { method: string; path: string }[] {
  const routes: { method: string; path: string }[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(.+?)(?: \(([A-Z, ]+)\))?$/u.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    const path = stack.join('');
    for (const method of (match[3] ?? '').split(',').map((m) => m.trim())) {
      if (method && method !== 'HEAD') routes.push({ method, path });
    }
  }
  return routes;
}

/** Fastify's `/a/:id` as OpenAPI's `/a/{id}`. */
export function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/**
 * The router shares one node between routes that name the same parameter differently
 * (`/api/events/:id` and `/api/events/:eventId/bookings`) and prints it as `:id|:eventId`;
 * each route uses one of the names, so every combination is a candidate path.
 */
export function candidatePaths(path: string): string[] {
  return path.split('/').reduce<string[]>(
    (prefixes, segment, index) => {
      const options = segment.includes('|') ? segment.split('|') : [segment];
      return prefixes.flatMap((prefix) =>
        options.map((option) => (index === 0 ? option : `${prefix}/${option}`)),
      );
    },
    [''],
  );
}

function servedRoutes(app: FastifyInstance) {
  return parseRouteTree(app.printRoutes({ commonPrefix: false })).filter(
    (route) => !DOCUMENTATION_ROUTES.some((pattern) => pattern.test(route.path)),
  );
}

describe('parseRouteTree', () => {
  it('rebuilds full paths from the indented tree', () => {
    const tree = [
      '└── /',
      '    ├── api/bots (GET, HEAD, POST)',
      '    │   └── /:id (GET, HEAD, PATCH, DELETE)',
      '    │       └── /prompt-versions (GET, HEAD)',
      '    └── v1/bots (GET, HEAD)',
    ].join('\n');
    expect(parseRouteTree(tree)).toEqual([
      { method: 'GET', path: '/api/bots' },
      { method: 'POST', path: '/api/bots' },
      { method: 'GET', path: '/api/bots/:id' },
      { method: 'PATCH', path: '/api/bots/:id' },
      { method: 'DELETE', path: '/api/bots/:id' },
      { method: 'GET', path: '/api/bots/:id/prompt-versions' },
      { method: 'GET', path: '/v1/bots' },
    ]);
    expect(candidatePaths('/api/events/:id|:eventId/bookings')).toEqual([
      '/api/events/:id/bookings',
      '/api/events/:eventId/bookings',
    ]);
    expect(toOpenApiPath('/api/events/:eventId/bookings/:bookingId')).toBe(
      '/api/events/{eventId}/bookings/{bookingId}',
    );
  });
});

describeApp('OpenAPI document', (get) => {
  async function openApiDocument(): Promise<OpenApiDocument> {
    const res = await get().app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    return res.json<OpenApiDocument>();
  }

  it('is a valid OpenAPI 3.1 document', async () => {
    const doc = await openApiDocument();
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents every route the server serves', async () => {
    const doc = await openApiDocument();
    const routes = servedRoutes(get().app);
    expect(routes.length).toBeGreaterThan(10);
    const missing = routes
      .filter(
        (r) => !candidatePaths(r.path).some((p) => doc.paths[toOpenApiPath(p)]?.[r.method.toLowerCase()]),
      )
      .map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
  });

  it('gives every operation a summary, a tag, a success response, and auth and errors where it needs them', async () => {
    const doc = await openApiDocument();
    const schemes = new Set(Object.keys(doc.components?.securitySchemes ?? {}));
    const problems: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const name = `${method.toUpperCase()} ${path}`;
        const statuses = Object.keys(operation.responses ?? {});
        if (!operation.summary?.trim()) problems.push(`${name}: no summary`);
        if (!operation.tags?.length) problems.push(`${name}: no tag`);
        if (!statuses.some((s) => /^2\d\d$/.test(s))) problems.push(`${name}: no 2xx response`);
        for (const requirement of operation.security ?? []) {
          for (const scheme of Object.keys(requirement)) {
            if (!schemes.has(scheme)) problems.push(`${name}: unknown security scheme ${scheme}`);
          }
        }
        const isApi = path.startsWith('/api/') || path.startsWith('/v1/');
        if (!isApi) continue;
        if (!statuses.some((s) => /^4\d\d$/.test(s))) problems.push(`${name}: no error response`);
        if (PUBLIC_ROUTES.has(name)) continue;
        if (!operation.security?.length) problems.push(`${name}: no security requirement`);
        if (!statuses.includes('401')) problems.push(`${name}: 401 not documented`);
        if (path.startsWith('/v1/') && !statuses.includes('429'))
          problems.push(`${name}: 429 not documented`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('names every operation with a unique, readable operationId and declares its security (also [] when public)', async () => {
    const doc = await openApiDocument();
    const ids = new Map<string, string>();
    const problems: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const name = `${method.toUpperCase()} ${path}`;
        const id = operation.operationId;
        if (!id) problems.push(`${name}: no operationId`);
        else if (!/^[a-z][A-Za-z0-9]+$/.test(id))
          problems.push(`${name}: operationId ${id} is not camelCase`);
        else if (ids.has(id)) problems.push(`${name}: operationId ${id} also names ${ids.get(id)}`);
        else ids.set(id, name);
        if (!Array.isArray(operation.security)) problems.push(`${name}: security not declared`);
      }
    }
    expect(problems).toEqual([]);
    expect(ids.get('chatWithBot')).toBe('POST /api/bot-chat/{botId}/chat');
    expect(ids.get('listBots')).toBe('GET /api/bots');
    expect(ids.get('createEvent')).toBe('POST /api/events');
    expect(doc.paths['/health']!.get!.security).toEqual([]);
    expect(doc.paths['/api/auth/login']!.post!.security).toEqual([]);
    expect(doc.paths['/webhooks/stripe']!.post!.security).toEqual([]);
  });

  it('lists the tags in documentation order, chat first, and every operation uses a listed tag', async () => {
    const doc = await openApiDocument();
    const tags = (doc.tags ?? []).map((t) => t.name);
    expect(tags[0]).toBe('chat');
    const used = new Set(
      Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((o) => o.tags ?? [])),
    );
    expect([...used].filter((t) => !tags.includes(t))).toEqual([]);
  });

  it('names the resource and error schemas as components instead of repeating them', async () => {
    const doc = await openApiDocument();
    const names = Object.keys(doc.components?.schemas ?? {});
    for (const name of [
      'Bot',
      'ChatRequest',
      'ChatResponse',
      'ChatError',
      'ErrorBody',
      'Conversation',
      'Event',
      'Booking',
      'KnowledgeEntry',
      'WebhookEndpoint',
      'ApiKey',
      'PromptVersion',
      'StripeEvent',
    ]) {
      expect(names, name).toContain(name);
    }
    expect(names.filter((n) => /^def-\d+$/.test(n))).toEqual([]);
    const text = JSON.stringify(doc.paths);
    expect(text).toContain('"$ref":"#/components/schemas/Bot"');
    expect(text).toContain('"$ref":"#/components/schemas/ErrorBody"');
    // Every reference points to a component that exists.
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map(
      (m) => m[1]!,
    );
    expect(refs.filter((r) => !names.includes(r))).toEqual([]);
  });

  it('declares the chat stream, its headers, and the Stripe callback body and signature', async () => {
    const doc = await openApiDocument();
    const chat = doc.paths['/api/bot-chat/{botId}/chat']!.post!;
    const headers = (chat.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
    expect(headers).toEqual(expect.arrayContaining(['Accept', 'Idempotency-Key']));
    const ok = chat.responses!['200'] as { content: Record<string, unknown> };
    expect(Object.keys(ok.content)).toEqual(
      expect.arrayContaining(['application/json', 'text/event-stream']),
    );
    expect(chat.requestBody?.content?.['application/json']?.schema?.$ref).toBe(
      '#/components/schemas/ChatRequest',
    );
    const stripe = doc.paths['/webhooks/stripe']!.post!;
    expect(stripe.requestBody?.content?.['application/json']?.schema?.$ref).toBe(
      '#/components/schemas/StripeEvent',
    );
    expect(stripe.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'Stripe-Signature', in: 'header', required: true }),
      ]),
    );
  });

  it('serves the interactive documentation at /docs', async () => {
    const res = await get().app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
  });
});

describeApp(
  'OpenAPI servers',
  (get) => {
    it('names PUBLIC_BASE_URL as the server', async () => {
      const doc = (await get().app.inject({ url: '/openapi.json' })).json<OpenApiDocument>();
      expect(doc.servers?.map((s) => s.url)).toEqual(['https://bots.example.org']);
    });
  },
  { env: { PUBLIC_BASE_URL: 'https://bots.example.org/' } },
);
