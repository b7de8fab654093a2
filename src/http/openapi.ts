/**
 * What makes the OpenAPI document a source for client generation: an operationId on every
 * operation, the tag order of the documentation (chat first), `servers` from PUBLIC_BASE_URL,
 * and named component schemas: every TypeBox schema with an `$id` (resources, error bodies)
 * becomes `#/components/schemas/<$id>` instead of being repeated inline.
 *
 * Every route declares its own `schema.operationId`; test/openapi/openapi.test.ts fails for an
 * operation without one.
 */
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { SCHEMA_NAMES } from './schemas.js';

/** The documentation's groups, in the order a newcomer looks for them. */
export const OPENAPI_TAGS = [
  { name: 'chat', description: 'Send a message to a bot and get its reply (JSON or server-sent events)' },
  { name: 'v1: bots', description: 'Public API: bots of the tenant (API key)' },
  { name: 'v1: conversations', description: 'Public API: conversations of the tenant (API key)' },
  { name: 'auth', description: 'Dashboard sign-in, session and API keys' },
  { name: 'dashboard: team', description: "The tenant's dashboard users and one's own password" },
  { name: 'dashboard: bots', description: 'Bots (dashboard session)' },
  {
    name: 'knowledge',
    description: 'Knowledge base: entries, import, document import jobs, hit test, onboarding',
  },
  { name: 'prompt-versions', description: 'Numbered prompt versions of a bot' },
  { name: 'flow: blocks', description: 'Interactive blocks of a bot' },
  { name: 'flow: steps', description: 'Conversation flow steps of a bot' },
  { name: 'preflight', description: 'Pre-flight check of a bot before activation' },
  { name: 'dashboard: conversations', description: 'Conversation viewer (dashboard session)' },
  { name: 'dashboard: inbox', description: 'People take over from the bot: the inbox (dashboard session)' },
  { name: 'conversation lifecycle', description: 'End, hand over, rate, reopen conversations' },
  { name: 'dashboard: usage', description: 'Monthly usage' },
  { name: 'dashboard: events', description: 'Events and bookings (planned module)' },
  { name: 'dashboard: contacts', description: 'Contacts of bookings, leads and chats' },
  { name: 'dashboard: notifications', description: 'Notifications of events, bookings and payments' },
  { name: 'webhooks', description: 'Outbound webhook endpoints, delivery log; the Stripe callback' },
  { name: 'internal (archived)', description: 'Archived trial-reminder endpoints (internal key)' },
  {
    name: 'dashboard: mailboxes',
    description: "A bot's mailboxes (e-mail channel): connections, secrets, health",
  },
  { name: 'e-mail', description: "Mail providers' inbound webhooks (HTTP basic auth per mailbox)" },
  { name: 'dashboard: channel connections', description: "A bot's WhatsApp, SMS and voice connections" },
  { name: 'messaging', description: "Meta's and Twilio's webhooks (signed per connection)" },
  {
    name: 'voice',
    description: "Twilio's voice webhooks and the ConversationRelay socket (signed per connection)",
  },
  { name: 'system', description: 'Liveness, readiness, metrics' },
  {
    name: 'widget',
    description: 'Website widget: visitor sessions, chat, transcript and events (visitor token)',
  },
  { name: 'dashboard: widget', description: "A bot's website widget: settings, keys, visitors' data" },
];

/** Additions to single operations that route schemas cannot express. */
const OPERATION_EXTRAS: Record<string, (operation: Operation) => void> = {
  chatWithBot(operation) {
    operation.parameters = [
      ...(operation.parameters ?? []),
      {
        name: 'Accept',
        in: 'header',
        required: false,
        description: '`text/event-stream` streams the reply as server-sent events; JSON otherwise',
        schema: { type: 'string', enum: ['application/json', 'text/event-stream'] },
      },
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          '1–255 visible ASCII characters; a repeated request with the same key and body within 24 h ' +
          'replays the stored response (header `Idempotent-Replayed: true`)',
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
      },
    ];
    const ok = operation.responses?.['200'];
    if (ok?.content) {
      ok.content['text/event-stream'] = {
        schema: {
          type: 'string',
          description:
            'Server-sent events: `event: delta` with `{"text": "…"}` while the model writes, then ' +
            '`event: done` with the ChatResponse object, or `event: error` with a ChatError',
        },
      };
      ok.headers = {
        ...ok.headers,
        'Idempotent-Replayed': {
          description:
            '`true` when the response is the stored one of an earlier request with this Idempotency-Key',
          schema: { type: 'string', enum: ['true'] },
        },
      };
    }
  },
  receiveStripeEvent(operation) {
    operation.requestBody = {
      required: true,
      description: 'The Stripe event exactly as Stripe sends it; the signature covers these bytes',
      content: {
        'application/json': { schema: { $ref: '#/components/schemas/StripeEvent' } },
      },
    };
    for (const parameter of operation.parameters ?? []) {
      if (parameter.in === 'header' && parameter.name.toLowerCase() === 'stripe-signature') {
        parameter.name = 'Stripe-Signature';
        parameter.required = true;
        parameter.description = 'Stripe signature header (`t=…,v1=…`), checked with STRIPE_WEBHOOK_SECRET';
      }
    }
  },
};

const STRIPE_EVENT = {
  type: 'object',
  title: 'StripeEvent',
  description: 'A Stripe event (https://docs.stripe.com/api/events/object); only these fields are read',
  required: ['id', 'type', 'data'],
  properties: {
    id: { type: 'string', description: 'Event id (evt_…); a repeated id changes nothing' },
    type: {
      type: 'string',
      description: 'Handled: checkout.session.completed, charge.refunded; others are ignored',
    },
    data: {
      type: 'object',
      required: ['object'],
      properties: { object: { type: 'object', additionalProperties: true } },
    },
  },
  additionalProperties: true,
};

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: unknown;
}
interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: unknown;
  responses?: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
}
type JsonObject = Record<string, unknown>;

/** Schema names by the title the document keeps: nameSchemas() and `$id`s of route schemas. */
const namedByTitle = SCHEMA_NAMES;

function collectNamed(node: unknown, seen = new Set<unknown>()): void {
  if (typeof node !== 'object' || node === null || seen.has(node)) return;
  seen.add(node);
  const schema = node as JsonObject;
  if (typeof schema.$id === 'string') {
    schema.title ??= schema.$id;
    namedByTitle.set(String(schema.title), schema.$id);
  }
  for (const value of Object.values(schema)) collectNamed(value, seen);
}

/**
 * Collects the named schemas of every route as it is added. Register it
 * before the routes.
 */
export function registerOpenApiNames(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = route.schema as JsonObject | undefined;
    if (!schema || schema.hide) return;
    collectNamed(schema);
  });
}

/** Replaces every inline copy of a named schema by a reference and moves it to the components. */
function hoistNamed(document: JsonObject): void {
  const components = ((document.components as JsonObject).schemas ??= {}) as JsonObject;
  // Hoisted references ("def-N") take the name of their schema.
  const renamed = new Map<string, string>();
  for (const [key, schema] of Object.entries(components)) {
    const id = namedByTitle.get(String((schema as JsonObject).title));
    if (id && key !== id) {
      renamed.set(`#/components/schemas/${key}`, `#/components/schemas/${id}`);
      components[id] = schema;
      delete components[key];
    }
  }
  const visit = (node: unknown, inComponent: string | null): unknown => {
    if (Array.isArray(node)) return node.map((item) => visit(item, null));
    if (typeof node !== 'object' || node === null) return node;
    const schema = node as JsonObject;
    if (typeof schema.$ref === 'string' && renamed.has(schema.$ref)) {
      return { ...schema, $ref: renamed.get(schema.$ref) };
    }
    const id = typeof schema.title === 'string' ? namedByTitle.get(schema.title) : undefined;
    if (id && id !== inComponent) {
      if (!components[id]) components[id] = visitChildren(schema, id);
      return { $ref: `#/components/schemas/${id}` };
    }
    return visitChildren(schema, null);
  };
  const visitChildren = (schema: JsonObject, self: string | null): JsonObject =>
    Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, visit(v, self)]));
  document.paths = visit(document.paths, null);
  for (const [id, schema] of Object.entries(components)) {
    components[id] = visitChildren(schema as JsonObject, id);
  }
}

/** Options of @fastify/swagger: the document's frame and its finishing touches. */
export function openApiOptions(publicBaseUrl: string): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Parley API',
        version: '1.0.0',
        description:
          'Multi-tenant platform for AI chatbots: chat, public /v1 API, dashboard, events, webhooks.',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: publicBaseUrl.replace(/\/+$/, ''), description: 'This deployment (PUBLIC_BASE_URL)' }],
      tags: OPENAPI_TAGS,
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'Tenant API key (svc_…)' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: 'parley_session',
            description:
              'Dashboard session cookie; writes with it also need a non-empty X-Requested-With header',
          },
          sessionBearer: { type: 'http', scheme: 'bearer', description: 'Dashboard session token (pst_…)' },
          internalKey: { type: 'apiKey', in: 'header', name: 'X-Internal-API-Key' },
          metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, when configured' },
          widgetVisitor: { type: 'http', scheme: 'bearer', description: 'Widget visitor token (wvt1.…)' },
          metaSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Hub-Signature-256',
            description: "Meta's HMAC-SHA256 of the raw body with the connection's app secret",
          },
          twilioSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Twilio-Signature',
            description: "Twilio's request signature with the connection's auth token over its public URL",
          },
          inboundBasic: {
            type: 'http',
            scheme: 'basic',
            description:
              "A mailbox's inbound webhook user and password (entered in the provider's webhook URL)",
          },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    transformObject: (documentObject) => {
      const { openapiObject } = documentObject as { openapiObject: JsonObject };
      const document = structuredClone(openapiObject);
      hoistNamed(document);
      ((document.components as JsonObject).schemas as JsonObject).StripeEvent = STRIPE_EVENT;
      for (const item of Object.values(document.paths as JsonObject)) {
        for (const operation of Object.values(item as Record<string, Operation>)) {
          if (operation.operationId) OPERATION_EXTRAS[operation.operationId]?.(operation);
        }
      }
      return document as never;
    },
  };
}
