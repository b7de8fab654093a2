import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { insertSession } from '../../src/modules/auth/repository.js';
import { sha256Hex } from '../../src/modules/auth/secrets.js';
import { describeApp, type TestApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';

/**
 * Property tests over every operation of the OpenAPI document (read from app.swagger(), so a
 * new route is covered without being listed here): requests with generated inputs (bodies from
 * the schema, plus hostile variants: NUL, huge numbers, wrong types, long strings, odd Unicode)
 * and valid credentials of a tenant never get a 5xx, and a refused request (4xx) leaves the
 * row count of every table as it was. PROPERTY_RUNS sets the runs per operation.
 */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 6);
const INTERNAL_KEY = 'internal-key-for-property-tests';

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}
interface Operation {
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, unknown>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

const HOSTILE_STRINGS = [
  '\u0000',
  'a\u0000b',
  'x'.repeat(100_000),
  '\ud800',
  '\udfff\ud800',
  '😀'.repeat(300),
  '\u202e\u200b\u2028\ufeff',
  "'; DROP TABLE bots; --",
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '%00',
  '',
  ' ',
  '1e19',
  '-1',
  'NaN',
  '00000000-0000-0000-0000-000000000000',
];
const HOSTILE_NUMBERS = [
  1e19,
  -1e19,
  2 ** 63,
  -(2 ** 63),
  2 ** 31,
  -(2 ** 31) - 1,
  1e308,
  -0,
  0.5,
  -1,
  Number.MAX_SAFE_INTEGER + 2,
];
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(...HOSTILE_STRINGS),
  fc.constantFrom<unknown>(...HOSTILE_NUMBERS),
  fc.constantFrom<unknown>(null, true, false, [], {}, [[[[[]]]]], { a: { b: { c: '\u0000' } } }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** encodeURIComponent that also takes lone surrogates, sending them as invalid UTF-8 bytes. */
function encode(text: string): string {
  return text
    .split(/([\ud800-\udfff])/)
    .map((part) => {
      try {
        return encodeURIComponent(part);
      } catch {
        return '%ED%A0%80';
      }
    })
    .join('');
}

function resolve(document: Document, schema: Schema | undefined): Schema {
  if (!schema) return {};
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    const name = ref.split('/').pop()!;
    return resolve(document, document.components?.schemas?.[name]);
  }
  return schema;
}

function stringFor(schema: Schema): fc.Arbitrary<string> {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : 40, Math.max(min, 40));
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'date':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10));
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'email':
      return fc.emailAddress();
    case 'uri':
      return fc.constantFrom('https://example.test/a', 'http://127.0.0.1/x', 'https://93.184.216.34/hook');
    default:
      return fc.string({ minLength: min, maxLength: max, unit: 'grapheme' });
  }
}

/** Values that fit the schema (mostly; patterns are not followed). */
function fromSchema(document: Document, raw: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(document, raw);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (union && union.length > 0) return fc.oneof(...union.map((s) => fromSchema(document, s, depth)));
  switch (schema.type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return fc.integer({
        min: typeof schema.minimum === 'number' ? schema.minimum : -1000,
        max: typeof schema.maximum === 'number' ? schema.maximum : 1_000_000,
      });
    case 'number':
      return fc.double({
        min: typeof schema.minimum === 'number' ? schema.minimum : -1000,
        max: typeof schema.maximum === 'number' ? schema.maximum : 1_000_000,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return depth > 4
        ? fc.constant([])
        : fc.array(fromSchema(document, schema.items as Schema, depth + 1), {
            maxLength: Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 3, 3),
          });
    case 'object': {
      if (depth > 4) return fc.constant({});
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required ?? []) as string[]);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(properties))
        model[name] = fromSchema(document, property, depth + 1);
      if (Object.keys(model).length === 0)
        return fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
      return fc.record(model, { requiredKeys: [...required].filter((k) => k in model) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A valid body, a body with one field (possibly nested one level) made hostile, or anything at all. */
function bodyFor(document: Document, schema: Schema | undefined): fc.Arbitrary<unknown> {
  const valid = fromSchema(document, schema);
  const mutated = fc
    .tuple(valid, fc.string({ maxLength: 12 }), hostileValue, fc.nat())
    .map(([body, extra, value, pick]) => {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return value;
      const keys = Object.keys(body);
      const key = keys.length > 0 && pick % 4 !== 0 ? keys[pick % keys.length]! : extra;
      const inner = (body as Record<string, unknown>)[key];
      if (inner && typeof inner === 'object' && !Array.isArray(inner) && pick % 3 === 0) {
        const innerKeys = Object.keys(inner);
        if (innerKeys.length > 0) return { ...body, [key]: { ...inner, [innerKeys[0]!]: value } };
      }
      return { ...body, [key]: value };
    });
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    { weight: 4, arbitrary: mutated },
    { weight: 1, arbitrary: hostileValue },
  );
}

function queryValue(document: Document, schema: Schema | undefined): fc.Arbitrary<string> {
  return fc.oneof(
    fromSchema(document, schema).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
    fc.constantFrom(
      ...HOSTILE_STRINGS.filter((s) => s.length < 5000),
      '1e19',
      '99999999999999999999',
      '-99999999999',
      '1.5',
      'true',
      '[]',
    ),
  );
}

/** An operation whose success is only a server-sent event stream (its 200 response's one content type). */
function isEventStream(operation: { responses?: Record<string, unknown> }): boolean {
  const ok = operation.responses?.['200'] as { content?: Record<string, unknown> } | undefined;
  const types = Object.keys(ok?.content ?? {});
  return types.length === 1 && types[0] === 'text/event-stream';
}

interface World {
  tenant: TenantFixture;
  ids: string[];
}

/** Builds a tenant with one resource of every kind, so generated paths can name real ids. */
async function buildWorld(t: TestApp): Promise<World> {
  const tenant = await buildTenant(t.ctx);
  const headers = tenant.owner.headers;
  const post = async (url: string, payload: object) => {
    const res = await t.app.inject({ method: 'POST', url, headers, payload });
    expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(300);
    return res.json() as Record<string, unknown>;
  };
  const bot = await tenant.bot();
  const event = await post('/api/events', { title: 'Kurs', event_date: '2030-01-01', capacity_total: 5 });
  const selling = await t.app.inject({
    method: 'PATCH',
    url: `/api/events/${String(event.id)}/status`,
    headers,
    payload: { status: 'selling' },
  });
  expect(selling.statusCode, selling.body).toBe(200);
  const contact = await post('/api/contacts', { name: 'Kim', sender_id: 'kim-1' });
  const booking = await post(`/api/events/${String(event.id)}/bookings`, { contact_id: contact.id });
  const knowledge = await post(`/api/bots/${bot.id}/knowledge`, {
    title: 'Zeiten',
    content: 'Mo–Fr 9–18 Uhr.',
  });
  const version = await post(`/api/bots/${bot.id}/prompt-versions`, { prompt_text: 'Du bist freundlich.' });
  const webhook = await post('/api/webhooks', {
    url: 'https://93.184.216.34/hook',
    event_types: ['conversation.ended'],
  });
  const chat = await t.app.inject({
    method: 'POST',
    url: `/api/bot-chat/${bot.id}/chat`,
    headers: tenant.keyHeaders,
    payload: { message: 'Wann habt ihr geöffnet?', sender_id: 'kim-1' },
  });
  expect(chat.statusCode).toBe(200);
  const collect = (value: unknown): string[] =>
    typeof value === 'string' && /^[0-9a-f-]{36}$/.test(value)
      ? [value]
      : value && typeof value === 'object'
        ? Object.values(value).flatMap(collect)
        : [];
  const ids = [
    ...new Set([
      bot.id,
      tenant.apiKeyId,
      ...[event, contact, booking, knowledge, version, webhook, chat.json()].flatMap(collect),
    ]),
  ];
  return { tenant, ids };
}

describeApp(
  'property: every operation of the OpenAPI document, any input',
  (get) => {
    let world: World;
    let countSql: string;

    beforeAll(async () => {
      const t = get();
      world = await buildWorld(t);
      const tables = await t.db.query<{ name: string }>(
        "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
      );
      countSql = `SELECT ${tables.map(({ name }) => `(SELECT count(*)::int FROM "${name}") AS "${name}"`).join(', ')}`;
    });

    const rowCounts = async () => (await get().db.query(countSql))[0];

    /** Credentials stay valid: a generated request may have rotated the key or ended the session. */
    async function credentials(t: TestApp): Promise<{ key: string; session: string }> {
      const { tenant } = world;
      try {
        await t.ctx.apiKeys.verify(tenant.apiKey);
      } catch {
        const { key, record } = await t.ctx.apiKeys.issue({ tenantId: tenant.id });
        tenant.apiKey = key;
        tenant.apiKeyId = record.id;
      }
      try {
        await t.ctx.sessions.authenticate(tenant.owner.token);
      } catch {
        const token = `pst_${randomUUID().replaceAll('-', '')}${randomUUID().replaceAll('-', '')}`;
        await insertSession(t.db, tenant.id, {
          userId: tenant.owner.id,
          tokenHash: sha256Hex(token),
          expiresAt: new Date(Date.now() + 3600_000),
        });
        tenant.owner.token = token;
      }
      return { key: tenant.apiKey, session: tenant.owner.token };
    }

    it('never answers 5xx, and a refused request writes nothing', async () => {
      const t = get();
      const document = t.app.swagger() as unknown as Document;
      const failures: string[] = [];
      let requests = 0;
      for (const [path, operations] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          // A stream the server holds open (the inbox's, a widget visitor's events) never ends an
          // injected request; its guards are tested in its own module's tests.
          if (isEventStream(operation)) continue;
          const parameters = operation.parameters ?? [];
          const pathParams = parameters.filter((p) => p.in === 'path');
          const queryParams = parameters.filter((p) => p.in === 'query');
          const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
          const documented5xx = Object.keys(operation.responses ?? {}).filter((s) => s.startsWith('5'));
          const schemes = (operation.security ?? []).flatMap((s) => Object.keys(s));

          const input = fc.record({
            path: fc.tuple(
              ...pathParams.map(() =>
                fc.oneof(
                  { weight: 4, arbitrary: fc.constantFrom(...world.ids) },
                  { weight: 1, arbitrary: fc.uuid() },
                  {
                    weight: 1,
                    arbitrary: fc.constantFrom(
                      ...HOSTILE_STRINGS.filter((s) => s.length > 0 && s.length < 5000),
                      'x'.repeat(3000),
                    ),
                  },
                ),
              ),
            ),
            query: fc.tuple(
              ...queryParams.map((p) => fc.option(queryValue(document, p.schema), { nil: undefined })),
            ),
            body: bodySchema ? bodyFor(document, bodySchema) : fc.constant(undefined),
          });

          await fc.assert(
            fc.asyncProperty(input, async ({ path: values, query, body }) => {
              const { key, session } = await credentials(t);
              let url = path;
              pathParams.forEach((p, i) => {
                url = url.replace(`{${p.name}}`, encode(values[i]!));
              });
              const search = queryParams
                .map((p, i) =>
                  query[i] === undefined ? undefined : `${encode(p.name)}=${encode(query[i]!)}`,
                )
                .filter(Boolean)
                .join('&');
              if (search) url += `?${search}`;
              const headers: Record<string, string> = {};
              if (schemes.includes('session')) headers.authorization = `Bearer ${session}`;
              else if (schemes.includes('apiKey')) headers.authorization = `Bearer ${key}`;
              if (schemes.includes('internalKey')) headers['x-internal-api-key'] = INTERNAL_KEY;
              const before = await rowCounts();
              const res = await t.app.inject({
                method: method.toUpperCase() as 'GET',
                url,
                headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
                ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
              });
              requests += 1;
              const label = `${method.toUpperCase()} ${url.slice(0, 200)} body=${JSON.stringify(body)?.slice(0, 300)}`;
              if (res.statusCode >= 500) {
                // Only a documented 503 (e.g. payment provider not configured) is a deliberate answer.
                if (!(res.statusCode === 503 && documented5xx.includes('503'))) {
                  failures.push(`${res.statusCode} ${label} → ${res.body.slice(0, 300)}`);
                }
              }
              if (res.statusCode >= 400 && res.statusCode !== 503) {
                const after = await rowCounts();
                if (JSON.stringify(after) !== JSON.stringify(before)) {
                  failures.push(
                    `${res.statusCode} wrote rows: ${label} ${JSON.stringify(before)} → ${JSON.stringify(after)}`,
                  );
                }
              }
              return true;
            }),
            { numRuns: RUNS, seed: Number(process.env.PROPERTY_SEED ?? Date.now() % 2 ** 31) },
          );
        }
      }
      expect(requests).toBeGreaterThan(Object.keys(document.paths).length);
      expect(failures).toEqual([]);
    }, 600_000);

    it('answers malformed multipart bodies on every operation with a 4xx and writes nothing', async () => {
      const t = get();
      const document = t.app.swagger() as unknown as Document;
      const boundary = 'parleyboundary';
      const part = (headers: string, body: string) => `--${boundary}\r\n${headers}\r\n\r\n${body}\r\n`;
      const file =
        'Content-Disposition: form-data; name="files"; filename="a.txt"\r\nContent-Type: text/plain';
      const MALFORMED: [string, string][] = [
        ['multipart/form-data; boundary=x', JSON.stringify({ url: 'https://example.test/' })],
        ['multipart/form-data', part(file, 'Hallo') + `--${boundary}--\r\n`],
        ['multipart/form-data; boundary=', part(file, 'Hallo')],
        ['multipart/form-data; boundary="offen', part(file, 'Hallo')],
        [`multipart/form-data; boundary=${boundary}`, ''],
        [`multipart/form-data; boundary=${boundary}`, part(file, 'abgeschnitten ohne Ende')],
        [
          `multipart/form-data; boundary=${boundary}`,
          part('kaputter Kopf ohne Doppelpunkt', 'x') + `--${boundary}--\r\n`,
        ],
        [
          `multipart/form-data; boundary=${boundary}`,
          part('Content-Disposition: form-data', 'x') + `--${boundary}--\r\n`,
        ],
        [`multipart/form-data; boundary=${boundary}`, `--${boundary}--\r\n`],
        [`multipart/form-data; boundary=${boundary}`, '\u0000'.repeat(64)],
      ];
      const failures: string[] = [];
      let requests = 0;
      for (const [path, operations] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          if (!operation.requestBody) continue;
          const documented5xx = Object.keys(operation.responses ?? {}).filter((code) => code.startsWith('5'));
          const schemes = (operation.security ?? []).flatMap((scheme) => Object.keys(scheme));
          const url = path.replace(/\{[^}]+\}/g, world.ids[0]!);
          for (const [contentType, payload] of MALFORMED) {
            const { key, session } = await credentials(t);
            const headers: Record<string, string> = { 'content-type': contentType };
            if (schemes.includes('session')) headers.authorization = `Bearer ${session}`;
            else if (schemes.includes('apiKey')) headers.authorization = `Bearer ${key}`;
            if (schemes.includes('internalKey')) headers['x-internal-api-key'] = INTERNAL_KEY;
            const before = await rowCounts();
            const res = await t.app.inject({ method: method.toUpperCase() as 'POST', url, headers, payload });
            requests += 1;
            const label = `${method.toUpperCase()} ${url} ${contentType} ${JSON.stringify(payload.slice(0, 60))}`;
            if (res.statusCode >= 500 && !(res.statusCode === 503 && documented5xx.includes('503'))) {
              failures.push(`${res.statusCode} ${label} → ${res.body.slice(0, 300)}`);
            }
            if (res.statusCode >= 400 && res.statusCode !== 503) {
              if (JSON.stringify(await rowCounts()) !== JSON.stringify(before))
                failures.push(`wrote rows: ${label}`);
            }
          }
        }
      }
      expect(requests).toBeGreaterThan(MALFORMED.length);
      expect(failures).toEqual([]);
    }, 600_000);
  },
  { env: { INTERNAL_API_KEY: INTERNAL_KEY, CHAT_RATE_LIMIT_MAX: '100000' } },
);
