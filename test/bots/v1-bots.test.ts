import { expect, it } from 'vitest';
import { describeApp, startApp, stopApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';

interface BotBody {
  id: string;
  name: string;
  [field: string]: unknown;
}
interface PageBody {
  data: BotBody[];
  next_cursor: string | null;
}

describeApp('/v1 bots', (get) => {
  const inject = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: object) =>
    get().app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });

  async function allPages(tenant: TenantFixture, query: string, limit: number): Promise<BotBody[][]> {
    const pages: BotBody[][] = [];
    let cursor: string | null = null;
    do {
      const suffix: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const res = await inject('GET', `/v1/bots?limit=${limit}${query}${suffix}`, tenant.keyHeaders);
      expect(res.statusCode).toBe(200);
      const body = res.json<PageBody>();
      pages.push(body.data);
      cursor = body.next_cursor;
    } while (cursor);
    return pages;
  }

  it('answers 401 in the common error shape without a key, with a wrong key or with x-api-key only', async () => {
    const tenant = await buildTenant(get().ctx);
    const missing = await inject('GET', '/v1/bots', {});
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({
      error: 'unauthorized',
      code: 'api_key_missing',
      message: expect.stringContaining('Bearer'),
    });
    const wrong = await inject('GET', '/v1/bots', { authorization: `Bearer ${tenant.apiKey}x` });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error).toBe('unauthorized');
    const headerOnly = await inject('GET', '/v1/bots', { 'x-api-key': tenant.apiKey });
    expect(headerOnly.statusCode).toBe(401);
    const bot = await tenant.bot();
    for (const url of [
      '/v1/bots',
      `/v1/bots/${bot.id}`,
      '/v1/conversations',
      `/v1/conversations/${bot.id}`,
    ]) {
      expect((await inject('GET', url, {})).statusCode, url).toBe(401);
      expect((await inject('GET', url, tenant.owner.headers)).statusCode, `${url} with a session`).toBe(401);
    }
    const post = await inject('POST', '/v1/bots', {}, { name: 'No key' });
    expect(post.statusCode).toBe(401);
    expect(await get().db.query('SELECT 1 FROM bots WHERE name = $1', ['No key'])).toHaveLength(0);
  });

  it('answers 401 for an expired key', async () => {
    const tenant = await buildTenant(get().ctx);
    const { key } = await get().ctx.apiKeys.issue({
      tenantId: tenant.id,
      expiresAt: new Date(Date.now() - 1000),
    });
    const res = await inject('GET', '/v1/bots', { authorization: `Bearer ${key}` });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({
      error: 'unauthorized',
      code: 'api_key_expired',
      message: 'The API key has expired',
    });
  });

  it('answers 403 on every route when the plan has no API access, and writes nothing', async () => {
    const tenant = await buildTenant(get().ctx, { plan: 'dashboard' });
    const bot = await tenant.bot();
    for (const url of [
      '/v1/bots',
      `/v1/bots/${bot.id}`,
      '/v1/conversations',
      `/v1/conversations/${bot.id}`,
    ]) {
      const res = await inject('GET', url, tenant.keyHeaders);
      expect(res.statusCode, url).toBe(403);
      expect(res.json().error).toBe('forbidden');
    }
    const post = await inject('POST', '/v1/bots', tenant.keyHeaders, { name: 'Blocked', bogus: 1 });
    expect(post.statusCode).toBe(403);
    expect(await get().db.query('SELECT 1 FROM bots WHERE tenant_id = $1', [tenant.id])).toHaveLength(1);
  });

  it('creates a bot with defaults and its first prompt version, without internal columns', async () => {
    const tenant = await buildTenant(get().ctx);
    const res = await inject('POST', '/v1/bots', tenant.keyHeaders, {
      name: 'Support',
      system_prompt: 'Du bist der Support-Bot.',
      emoji_usage: 2,
      formal_address: false,
      industry_code: 'retail',
      model: 'gpt-4o-mini',
    });
    expect(res.statusCode).toBe(201);
    const bot = res.json<BotBody>();
    expect(bot).toMatchObject({
      name: 'Support',
      system_prompt: 'Du bist der Support-Bot.',
      knowledge_strictness: 3,
      emoji_usage: 2,
      formal_address: false,
      industry_code: 'retail',
      model: 'gpt-4o-mini',
      is_active: true,
      status: 'active',
    });
    expect(bot).not.toHaveProperty('tenant_id');
    expect(res.body).not.toContain(tenant.id);
    const versions = await get().db.query<{
      version_number: number;
      is_current: boolean;
      prompt_text: string;
    }>(
      'SELECT version_number, is_current, prompt_text FROM bot_prompt_versions WHERE tenant_id = $1 AND bot_id = $2',
      [tenant.id, bot.id],
    );
    expect(versions).toEqual([
      { version_number: 1, is_current: true, prompt_text: 'Du bist der Support-Bot.' },
    ]);
    const fetched = await inject('GET', `/v1/bots/${bot.id}`, tenant.keyHeaders);
    expect(fetched.statusCode).toBe(200);
    expect(fetched.json()).toEqual(bot);
  });

  it('creates a bot without a prompt and without a version', async () => {
    const tenant = await buildTenant(get().ctx);
    const res = await inject('POST', '/v1/bots', tenant.keyHeaders, {
      name: 'Bare',
      is_active: false,
      status: 'draft',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ is_active: false, status: 'draft', system_prompt: '' });
    const versions = await get().db.query('SELECT 1 FROM bot_prompt_versions WHERE bot_id = $1', [
      res.json().id,
    ]);
    expect(versions).toHaveLength(0);
  });

  it.each([
    [{ name: 'X', kind: 'smart' }, "Unknown field 'kind'"],
    [{ name: 'X', tenant_id: '00000000-0000-0000-0000-000000000000' }, "Unknown field 'tenant_id'"],
    [{ system_prompt: 'no name' }, "Field 'name' is required"],
    [{ name: '' }, 'body.name'],
    [{ name: '   ' }, 'body.name'],
    [{ name: 'X', knowledge_strictness: 6 }, 'body.knowledge_strictness'],
    [{ name: 'X', knowledge_strictness: 2.5 }, 'body.knowledge_strictness'],
    [{ name: 'X', emoji_usage: 11 }, 'body.emoji_usage'],
    [{ name: 'X', is_active: 'true' }, 'body.is_active'],
    [{ name: 'X', status: 'paused' }, 'body.status'],
    [{ name: 'X', formal_address: 1 }, 'body.formal_address'],
    [{ name: 'x'.repeat(201) }, 'body.name'],
  ])('refuses %j with 400 naming the field and writes nothing', async (payload, text) => {
    const tenant = await buildTenant(get().ctx);
    const res = await inject('POST', '/v1/bots', tenant.keyHeaders, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('validation_error');
    expect(res.json().message).toContain(text);
    expect(await get().db.query('SELECT 1 FROM bots WHERE tenant_id = $1', [tenant.id])).toHaveLength(0);
  });

  it('refuses a body that is not JSON', async () => {
    const tenant = await buildTenant(get().ctx);
    const res = await get().app.inject({
      method: 'POST',
      url: '/v1/bots',
      headers: { ...tenant.keyHeaders, 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('validation_error');
  });

  it("answers 404 for another tenant's bot and for a malformed id", async () => {
    const mine = await buildTenant(get().ctx);
    const other = await buildTenant(get().ctx);
    const foreign = await other.bot();
    const res = await inject('GET', `/v1/bots/${foreign.id}`, mine.keyHeaders);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      error: 'not_found',
      code: 'not_found',
      message: 'Bot not found',
      details: { resource: 'bot' },
    });
    expect((await inject('GET', '/v1/bots/not-a-uuid', mine.keyHeaders)).statusCode).toBe(404);
  });

  it('lists only the own bots, newest first, across pages without duplicates or gaps', async () => {
    const tenant = await buildTenant(get().ctx);
    const other = await buildTenant(get().ctx);
    await other.bot();
    const created: string[] = [];
    for (let i = 0; i < 23; i += 1) created.push((await tenant.bot({ name: `B${i}` })).id);
    const pages = await allPages(tenant, '', 10);
    expect(pages.map((p) => p.length)).toEqual([10, 10, 3]);
    // Newest first; rows of the same instant in a fixed order by id.
    const expected = await get().db.query<{ id: string }>(
      'SELECT id FROM bots WHERE tenant_id = $1 ORDER BY created_at DESC, id DESC',
      [tenant.id],
    );
    expect(pages.flat().map((b) => b.id)).toEqual(expected.map((r) => r.id));
    expect(new Set(pages.flat().map((b) => b.id))).toEqual(new Set(created));
  });

  it('pages correctly through rows created in the same instant', async () => {
    const tenant = await buildTenant(get().ctx);
    for (let i = 0; i < 7; i += 1) await tenant.bot();
    // Same millisecond, different microseconds, and fully identical timestamps.
    await get().db.query(
      `UPDATE bots SET created_at = '2026-03-01T10:00:00.000000Z'::timestamptz + (
         CASE WHEN name > 'Bot 8' THEN interval '0' ELSE interval '0.000400 seconds' END)
       WHERE tenant_id = $1`,
      [tenant.id],
    );
    const ids = (await allPages(tenant, '', 2)).flat().map((b) => b.id);
    expect(ids).toHaveLength(7);
    expect(new Set(ids).size).toBe(7);
  });

  it('stays stable when bots are created while a client pages', async () => {
    const tenant = await buildTenant(get().ctx);
    const original: string[] = [];
    for (let i = 0; i < 9; i += 1) {
      const bot = await tenant.bot();
      // Distinct past instants: the order under test does not hinge on clock resolution.
      await get().db.query(
        `UPDATE bots SET created_at = now() - make_interval(mins => 100 - $2) WHERE id = $1`,
        [bot.id, i],
      );
      original.push(bot.id);
    }
    const first = await inject('GET', '/v1/bots?limit=4', tenant.keyHeaders);
    const firstPage = first.json<PageBody>();
    for (let i = 0; i < 3; i += 1) await tenant.bot();
    const seen = firstPage.data.map((b) => b.id);
    let cursor = firstPage.next_cursor;
    while (cursor) {
      const res = await inject(
        'GET',
        `/v1/bots?limit=4&cursor=${encodeURIComponent(cursor)}`,
        tenant.keyHeaders,
      );
      const body = res.json<PageBody>();
      seen.push(...body.data.map((b) => b.id));
      cursor = body.next_cursor;
    }
    expect(seen).toEqual([...original].reverse());
  });

  it('filters by is_active and status, also combined with paging', async () => {
    const tenant = await buildTenant(get().ctx);
    const active = await tenant.bot({ is_active: true, status: 'active' });
    const inactive = await tenant.bot({ is_active: false, status: 'active' });
    const draft = await tenant.bot({ is_active: false, status: 'draft' });
    const disabled = await tenant.bot({ is_active: true, status: 'disabled' });
    const ids = async (query: string) =>
      (await allPages(tenant, query, 1))
        .flat()
        .map((b) => b.id)
        .sort();
    expect(await ids('&is_active=true')).toEqual([disabled.id, active.id].sort());
    expect(await ids('&is_active=false')).toEqual([draft.id, inactive.id].sort());
    expect(await ids('&status=draft')).toEqual([draft.id]);
    expect(await ids('&status=active&is_active=false')).toEqual([inactive.id]);
    expect(await ids('&status=disabled&is_active=true')).toEqual([disabled.id]);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['status=paused', 'status'],
    ['is_active=maybe', 'is_active'],
    ['sort=name', "Unknown field 'sort'"],
    ['cursor=garbage', 'cursor'],
  ])('refuses the query %s with 400', async (query, text) => {
    const tenant = await buildTenant(get().ctx);
    const res = await inject('GET', `/v1/bots?${query}`, tenant.keyHeaders);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_error', message: expect.stringContaining(text) });
  });

  it('refuses a cursor of another list', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    for (let i = 0; i < 2; i += 1) {
      await get().db.query('INSERT INTO conversations (tenant_id, bot_id) VALUES ($1, $2)', [
        tenant.id,
        bot.id,
      ]);
    }
    const conversations = await inject('GET', '/v1/conversations?limit=1', tenant.keyHeaders);
    const cursor = conversations.json<PageBody>().next_cursor!;
    expect(cursor).toBeTruthy();
    const res = await inject('GET', `/v1/bots?cursor=${encodeURIComponent(cursor)}`, tenant.keyHeaders);
    expect(res.statusCode).toBe(400);
  });

  it('answers the 61st request of a minute with 429 and the RateLimit headers, per tenant', async () => {
    const tenant = await buildTenant(get().ctx);
    const bystander = await buildTenant(get().ctx);
    const urls = ['/v1/bots', '/v1/conversations'];
    for (let i = 0; i < 60; i += 1) {
      const res = await inject('GET', urls[i % 2]!, tenant.keyHeaders);
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('60');
      expect(res.headers['ratelimit-remaining']).toBe(String(59 - i));
    }
    const limited = await inject('GET', '/v1/bots', tenant.keyHeaders);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error).toBe('rate_limited');
    expect(limited.json().message).toContain('60');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    const post = await inject('POST', '/v1/bots', tenant.keyHeaders, { name: 'Too many' });
    expect(post.statusCode).toBe(429);
    expect(await get().db.query('SELECT 1 FROM bots WHERE name = $1', ['Too many'])).toHaveLength(0);
    expect((await inject('GET', '/v1/bots', bystander.keyHeaders)).statusCode).toBe(200);
  });

  it.skipIf(!process.env.REDIS_URL)('shares the /v1 limit of a tenant between two instances', async () => {
    const first = await startApp(get().database, { redis: true });
    const second = await startApp(get().database, { redis: true });
    try {
      const tenant = await buildTenant(first.ctx);
      for (let i = 0; i < 60; i += 1) {
        const app = i % 2 === 0 ? first.app : second.app;
        const res = await app.inject({ method: 'GET', url: '/v1/bots', headers: tenant.keyHeaders });
        expect(res.statusCode).toBe(200);
      }
      const res = await second.app.inject({ method: 'GET', url: '/v1/bots', headers: tenant.keyHeaders });
      expect(res.statusCode).toBe(429);
    } finally {
      await stopApp(first);
      await stopApp(second);
    }
  });
});
