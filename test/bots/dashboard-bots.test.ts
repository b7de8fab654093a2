import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { seedConversation } from '../conversations/seed.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

describeApp('dashboard bots', (get) => {
  const call = (method: Method, url: string, headers: Record<string, string>, payload?: object) =>
    get().app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });

  /** A block with choice items and no routing: the pre-flight check colours it red. */
  async function addRedBlock(tenantId: string, botId: string): Promise<string> {
    const [row] = await get().db.query<{ id: string }>(
      `INSERT INTO interactive_blocks (tenant_id, bot_id, name, block_type, items)
       VALUES ($1, $2, 'Termine', 'buttons', '[{"id":"a","title":"Montag"}]') RETURNING id`,
      [tenantId, botId],
    );
    return row!.id;
  }

  it('needs a session for every route (401)', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const routes: [Method, string][] = [
      ['GET', '/api/bots'],
      ['POST', '/api/bots'],
      ['GET', `/api/bots/${bot.id}`],
      ['PATCH', `/api/bots/${bot.id}`],
      ['DELETE', `/api/bots/${bot.id}`],
    ];
    for (const [method, url] of routes) {
      const res = await call(
        method,
        url,
        tenant.keyHeaders,
        method === 'GET' || method === 'DELETE' ? undefined : {},
      );
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(res.json().error).toBe('unauthorized');
    }
    expect((await get().db.query('SELECT 1 FROM bots WHERE id = $1', [bot.id])).length).toBe(1);
  });

  it('lets a viewer read but not write (403 without bot:edit)', async () => {
    const tenant = await buildTenant(get().ctx);
    const viewer = await tenant.user('viewer');
    const bot = await tenant.bot({ name: 'Keep' });
    expect((await call('GET', '/api/bots', viewer.headers)).statusCode).toBe(200);
    expect((await call('GET', `/api/bots/${bot.id}`, viewer.headers)).statusCode).toBe(200);
    const post = await call('POST', '/api/bots', viewer.headers, { name: 'Nope' });
    expect(post.statusCode).toBe(403);
    expect(post.json().error).toBe('forbidden');
    expect((await call('PATCH', `/api/bots/${bot.id}`, viewer.headers, { name: 'Changed' })).statusCode).toBe(
      403,
    );
    expect((await call('DELETE', `/api/bots/${bot.id}`, viewer.headers)).statusCode).toBe(403);
    const [row] = await get().db.query<{ name: string }>('SELECT name FROM bots WHERE id = $1', [bot.id]);
    expect(row!.name).toBe('Keep');
    const editor = await tenant.user('editor');
    expect((await call('PATCH', `/api/bots/${bot.id}`, editor.headers, { name: 'Edited' })).statusCode).toBe(
      200,
    );
  });

  it("answers 404 for another tenant's bot on every route, and changes nothing", async () => {
    const mine = await buildTenant(get().ctx);
    const other = await buildTenant(get().ctx);
    const foreign = await other.bot({ name: 'Foreign', system_prompt: 'Alt' });
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { name: 'Hijacked', system_prompt: 'Neu' }],
      ['DELETE', undefined],
    ] as [Method, object | undefined][]) {
      const res = await call(method, `/api/bots/${foreign.id}`, mine.owner.headers, body);
      expect(res.statusCode, method).toBe(404);
      expect(res.json()).toEqual({
        error: 'not_found',
        code: 'not_found',
        message: 'Bot not found',
        details: { resource: 'bot' },
      });
    }
    const [row] = await get().db.query<{ name: string; system_prompt: string }>(
      'SELECT name, system_prompt FROM bots WHERE id = $1',
      [foreign.id],
    );
    expect(row).toEqual({ name: 'Foreign', system_prompt: 'Alt' });
    const list = await call('GET', '/api/bots', mine.owner.headers);
    expect(list.json().data).toEqual([]);
    for (const method of ['GET', 'DELETE'] as Method[]) {
      expect((await call(method, '/api/bots/123', mine.owner.headers)).statusCode).toBe(404);
    }
  });

  it('creates a bot with every field and lists it', async () => {
    const tenant = await buildTenant(get().ctx);
    const fields = {
      name: 'Concierge',
      description: 'Beantwortet Fragen zum Hotel',
      kind: 'specialized',
      is_active: false,
      status: 'draft',
      system_prompt: 'Du bist der Concierge.',
      knowledge_strictness: 5,
      knowledge_min_score: 0.5,
      emoji_usage: 10,
      formal_address: true,
      industry_code: 'hospitality',
      model: 'claude-3-5-haiku',
      channels: ['email', 'whatsapp'],
    };
    const res = await call('POST', '/api/bots', tenant.owner.headers, fields);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject(fields);
    expect(res.json()).not.toHaveProperty('tenant_id');
    const [version] = await get().db.query<{ created_by: string; version_number: number }>(
      'SELECT created_by, version_number FROM bot_prompt_versions WHERE bot_id = $1',
      [res.json().id],
    );
    expect(version).toEqual({ created_by: tenant.owner.id, version_number: 1 });
    const list = await call('GET', '/api/bots?status=draft', tenant.owner.headers);
    expect(list.json().data.map((b: { id: string }) => b.id)).toEqual([res.json().id]);
  });

  it.each([
    [{ name: 'X', channels: ['fax'] }, 'body.channels'],
    [{ name: 'X', channels: ['email', 'email'] }, 'body.channels'],
    [{ name: 'X', kind: 'giant' }, 'body.kind'],
    [{ name: 'X', knowledge_min_score: 1.5 }, 'body.knowledge_min_score'],
    [{ name: 'X', system_prompt_generated: 'x' }, "Unknown field 'system_prompt_generated'"],
  ])('refuses to create %j (400) and writes nothing', async (payload, text) => {
    const tenant = await buildTenant(get().ctx);
    const res = await call('POST', '/api/bots', tenant.owner.headers, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain(text);
    expect(await get().db.query('SELECT 1 FROM bots WHERE tenant_id = $1', [tenant.id])).toHaveLength(0);
  });

  it('changes fields with PATCH and refuses empty or unknown changes', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({ name: 'Alt' });
    const res = await call('PATCH', `/api/bots/${bot.id}`, tenant.owner.headers, {
      name: 'Neu',
      emoji_usage: 4,
      industry_code: null,
      channels: ['api', 'voice'],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      name: 'Neu',
      emoji_usage: 4,
      industry_code: null,
      channels: ['api', 'voice'],
    });
    expect(new Date(res.json().updated_at).getTime()).toBeGreaterThanOrEqual(bot.updated_at.getTime());
    expect((await call('PATCH', `/api/bots/${bot.id}`, tenant.owner.headers, {})).statusCode).toBe(400);
    const unknown = await call('PATCH', `/api/bots/${bot.id}`, tenant.owner.headers, { id: bot.id });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().message).toContain("Unknown field 'id'");
    const bad = await call('PATCH', `/api/bots/${bot.id}`, tenant.owner.headers, {
      name: 'X',
      emoji_usage: -1,
    });
    expect(bad.statusCode).toBe(400);
    const [row] = await get().db.query<{ name: string }>('SELECT name FROM bots WHERE id = $1', [bot.id]);
    expect(row!.name).toBe('Neu');
  });

  it('stores a new current prompt version when PATCH changes system_prompt, and none when it does not', async () => {
    const tenant = await buildTenant(get().ctx);
    const editor = await tenant.user('editor');
    const bot = await tenant.bot({ system_prompt: 'Version eins' });
    const res = await call('PATCH', `/api/bots/${bot.id}`, editor.headers, { system_prompt: 'Version zwei' });
    expect(res.statusCode).toBe(200);
    expect(res.json().system_prompt).toBe('Version zwei');
    const versions = () =>
      get().db.query<{
        version_number: number;
        is_current: boolean;
        prompt_text: string;
        created_by: string | null;
      }>(
        `SELECT version_number, is_current, prompt_text, created_by FROM bot_prompt_versions
         WHERE bot_id = $1 ORDER BY version_number`,
        [bot.id],
      );
    expect(await versions()).toEqual([
      { version_number: 1, is_current: false, prompt_text: 'Version eins', created_by: null },
      { version_number: 2, is_current: true, prompt_text: 'Version zwei', created_by: editor.id },
    ]);
    const same = await call('PATCH', `/api/bots/${bot.id}`, editor.headers, {
      system_prompt: 'Version zwei',
      name: 'N',
    });
    expect(same.statusCode).toBe(200);
    expect(await versions()).toHaveLength(2);
  });

  it('refuses activation with 409 and the red blocks while the flow has a block without routing', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({ is_active: false, status: 'draft' });
    const blockId = await addRedBlock(tenant.id, bot.id);
    for (const change of [{ is_active: true, name: 'Renamed' }, { status: 'active' }]) {
      const res = await call('PATCH', `/api/bots/${bot.id}`, tenant.owner.headers, change);
      expect(res.statusCode, JSON.stringify(change)).toBe(409);
      const body = res.json();
      expect(body.error).toBe('conflict');
      expect(body.message).toContain('pre-flight');
      expect(body.details.red_blocks).toHaveLength(1);
      expect(body.details.red_blocks[0]).toMatchObject({ blockId, blockName: 'Termine', status: 'red' });
    }
    const [row] = await get().db.query('SELECT name, is_active, status FROM bots WHERE id = $1', [bot.id]);
    expect(row).toEqual({ name: bot.name, is_active: false, status: 'draft' });
    // Changes that switch nothing on are not checked.
    expect(
      (await call('PATCH', `/api/bots/${bot.id}`, tenant.owner.headers, { name: 'Still off' })).statusCode,
    ).toBe(200);
    await get().db.query(`UPDATE interactive_blocks SET trigger_mode = 'auto' WHERE id = $1`, [blockId]);
    const ok = await call('PATCH', `/api/bots/${bot.id}`, tenant.owner.headers, {
      is_active: true,
      status: 'active',
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ is_active: true, status: 'active' });
  });

  it('does not check a bot that is already active when is_active true is sent again', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({ is_active: true, status: 'active' });
    await addRedBlock(tenant.id, bot.id);
    const res = await call('PATCH', `/api/bots/${bot.id}`, tenant.owner.headers, {
      is_active: true,
      emoji_usage: 1,
    });
    expect(res.statusCode).toBe(200);
  });

  it('deletes a bot with its conversations, messages and prompt versions', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({ system_prompt: 'Weg damit' });
    const keep = await tenant.bot();
    const conversation = await seedConversation(get().db, tenant.id, bot.id, { messages: 3 });
    const kept = await seedConversation(get().db, tenant.id, keep.id, { messages: 1 });
    const res = await call('DELETE', `/api/bots/${bot.id}`, tenant.owner.headers);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    for (const [table, column] of [
      ['conversations', 'bot_id'],
      ['messages', 'bot_id'],
      ['bot_prompt_versions', 'bot_id'],
    ]) {
      expect(
        await get().db.query(`SELECT 1 FROM ${table} WHERE ${column} = $1`, [bot.id]),
        table,
      ).toHaveLength(0);
    }
    expect(
      await get().db.query('SELECT 1 FROM messages WHERE conversation_id = $1', [conversation.id]),
    ).toHaveLength(0);
    expect(await get().db.query('SELECT 1 FROM messages WHERE conversation_id = $1', [kept.id])).toHaveLength(
      1,
    );
    expect((await call('GET', `/api/bots/${bot.id}`, tenant.owner.headers)).statusCode).toBe(404);
    expect((await call('DELETE', `/api/bots/${bot.id}`, tenant.owner.headers)).statusCode).toBe(404);
  });

  it('pages through the dashboard list with the same cursor rules as /v1', async () => {
    const tenant = await buildTenant(get().ctx);
    for (let i = 0; i < 5; i += 1) await tenant.bot();
    const first = await call('GET', '/api/bots?limit=3', tenant.owner.headers);
    expect(first.json().data).toHaveLength(3);
    const second = await call(
      'GET',
      `/api/bots?limit=3&cursor=${encodeURIComponent(first.json().next_cursor)}`,
      tenant.owner.headers,
    );
    expect(second.json().data).toHaveLength(2);
    expect(second.json().next_cursor).toBeNull();
    const ids = [...first.json().data, ...second.json().data].map((b: { id: string }) => b.id);
    expect(new Set(ids).size).toBe(5);
  });
});
