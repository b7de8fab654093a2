import { describe, expect, it } from 'vitest';
import { findNul } from '../../src/http/hostile-input.js';
import { RecordingModel, useModel } from '../chat/fixtures.js';
import { chatUrl, sendChat } from '../chat/helpers.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import type { TestApp } from '../helpers/app.js';

const NUL = '\u0000';

interface OpenApiParameter {
  name: string;
  in: string;
  schema?: Record<string, unknown>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: OpenApiParameter[] }>>;
}

/** Row counts of every table of the public schema. */
async function rowCounts(t: TestApp): Promise<Record<string, number>> {
  const tables = await t.db.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    const [row] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${name}"`);
    counts[name] = row!.n;
  }
  return counts;
}

describe('findNul', () => {
  it('finds a NUL in a string, an array item, a nested value or a key, in the given order', () => {
    expect(findNul('a')).toBeUndefined();
    expect(findNul({ a: ['x', `y${NUL}`] })).toEqual(['a', '1']);
    expect(findNul({ a: { [`k${NUL}`]: 1 } })).toEqual(['a', `k${NUL}`]);
    expect(findNul({ z: NUL, m: NUL }, ['m'])).toEqual(['m']);
    expect(findNul(Buffer.from([0]))).toBeUndefined();
  });

  it('walks a deeply nested value without exhausting the stack', () => {
    let deep: unknown = NUL;
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    expect(findNul(deep)).toHaveLength(100_000);
  });
});

describeApp('NUL characters are refused at the edge', (get) => {
  let tenant: TenantFixture;
  const session = () => tenant.owner.headers;

  it('chat: 400 with the field text before the model is called, nothing stored', async () => {
    const t = get();
    tenant = await buildTenant(t.ctx);
    const bot = await tenant.bot();
    const model = new RecordingModel();
    const restore = useModel(t.ctx, model);
    const before = await rowCounts(t);
    try {
      const cases: [unknown, string, Record<string, string>?][] = [
        [{ message: `Hallo${NUL}` }, 'Nachricht erforderlich'],
        [{ message: 'Hallo', sender_id: `a${NUL}b` }, 'Ungültige sender_id'],
        [{ message: 'Hallo', metadata: { deep: [{ x: `${NUL}` }] } }, 'Ungültige metadata'],
        [{ message: 'Hallo', metadata: { [`k${NUL}`]: 1 } }, 'Ungültige metadata'],
        [{ message: 'Hallo', channel: `api${NUL}` }, 'Ungültiges Zeichen'],
        [{ message: 'Hallo', conversation_id: `${NUL}` }, 'Ungültiges Zeichen'],
        [{ message: 'Hallo' }, 'Ungültiges Zeichen', { 'idempotency-key': `k${NUL}` }],
      ];
      for (const [payload, text, headers] of cases) {
        const res = await sendChat(t, tenant, bot.id, payload, headers);
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().error).toBe(text);
      }
      const inPath = await t.app.inject({
        method: 'POST',
        url: `${chatUrl(bot.id)}%00`,
        headers: { ...tenant.keyHeaders, 'content-type': 'application/json' },
        payload: { message: 'Hallo' },
      });
      expect([400, 404]).toContain(inPath.statusCode);
    } finally {
      restore();
    }
    expect(model.requests).toHaveLength(0);
    expect(await rowCounts(t)).toEqual(before);
  });

  it('chat: authentication still comes first', async () => {
    const t = get();
    const bot = await tenant.bot();
    const res = await t.app.inject({
      method: 'POST',
      url: chatUrl(bot.id),
      headers: { 'content-type': 'application/json' },
      payload: { message: `x${NUL}` },
    });
    expect(res.statusCode).toBe(401);
  });

  it('other endpoints: 400 validation_error naming the field, in body, query, path and headers', async () => {
    const t = get();
    const bot = await tenant.bot();
    const before = await rowCounts(t);
    const cases: { method: 'GET' | 'POST' | 'PUT'; url: string; payload?: unknown; field: string }[] = [
      { method: 'POST', url: '/api/contacts', payload: { name: `A${NUL}` }, field: 'body.name' },
      {
        method: 'POST',
        url: '/api/contacts',
        payload: { name: 'A', metadata: { list: ['ok', `x${NUL}`] } },
        field: 'body.metadata.list.1',
      },
      {
        method: 'POST',
        url: '/api/events',
        payload: { title: `T${NUL}`, event_date: '2030-01-01', capacity_total: 1 },
        field: 'body.title',
      },
      {
        method: 'POST',
        url: `/api/bots/${bot.id}/knowledge`,
        payload: { title: 'T', content: `C${NUL}` },
        field: 'body.content',
      },
      {
        method: 'POST',
        url: `/api/bots/${bot.id}/prompt-versions`,
        payload: { prompt_text: `P${NUL}` },
        field: 'body.prompt_text',
      },
      { method: 'PUT', url: `/api/bots/${bot.id}`, payload: { name: `B${NUL}` }, field: 'body.name' },
      { method: 'GET', url: '/api/contacts?q=a%00b', field: 'query.q' },
      { method: 'GET', url: '/api/events?status=draft%00', field: 'query.status' },
      { method: 'GET', url: '/api/events/%00', field: 'params.id' },
    ];
    for (const c of cases) {
      const res = await t.app.inject({
        method: c.method,
        url: c.url,
        headers: session(),
        ...(c.payload === undefined ? {} : { payload: c.payload as object }),
      });
      expect(res.statusCode, c.url).toBe(400);
      expect(res.json()).toMatchObject({
        error: 'validation_error',
        message: `Field '${c.field}' must not contain the NUL character (U+0000)`,
      });
    }
    const header = await t.app.inject({
      method: 'GET',
      url: '/api/contacts',
      headers: { ...session(), 'x-custom': `a${NUL}` },
    });
    expect(header.statusCode).toBe(400);
    expect(header.json().message).toContain("'headers.x-custom'");
    expect(await rowCounts(t)).toEqual(before);
  });

  it('/v1 with the API key', async () => {
    const t = get();
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/bots',
      headers: tenant.keyHeaders,
      payload: { name: `B${NUL}` },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('validation_error');
  });
});

describeApp('numeric query parameters are bounded', (get) => {
  it('every integer or number parameter of every operation has a maximum', async () => {
    const document = get().app.swagger() as unknown as OpenApiDocument;
    const unbounded: string[] = [];
    let checked = 0;
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const parameter of operation.parameters ?? []) {
          const schemas = [parameter.schema ?? {}, ...((parameter.schema?.anyOf as object[]) ?? [])];
          for (const schema of schemas as Record<string, unknown>[]) {
            if (schema.type !== 'integer' && schema.type !== 'number') continue;
            checked += 1;
            if (typeof schema.maximum !== 'number' || typeof schema.minimum !== 'number') {
              unbounded.push(`${method.toUpperCase()} ${path} ${parameter.in}.${parameter.name}`);
            }
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
    expect(unbounded).toEqual([]);
  });

  it('a knowledge_min_score too small for a real column is stored rounded, not a 500', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/bots',
      headers: tenant.owner.headers,
      payload: { name: 'Winzig', knowledge_min_score: 1.0319925911008868e-190 },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().knowledge_min_score).toBe(0);
  });

  it('a number beyond bigint in a query is a 400, not a 500', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    for (const url of ['/api/knowledge', '/api/events', '/api/contacts']) {
      for (const query of ['limit=1e19', 'limit=99999999999999999999', 'limit=-1', 'limit=1.5']) {
        const res = await t.app.inject({
          method: 'GET',
          url: `${url}?${query}`,
          headers: tenant.owner.headers,
        });
        expect(res.statusCode, `${url}?${query}`).toBe(400);
        expect(res.json().error).toBe('validation_error');
      }
    }
  });
});
