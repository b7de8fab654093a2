import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';

interface Version {
  id: string;
  version_number: number;
  is_current: boolean;
  prompt_text: string;
  version_name: string | null;
  change_notes: string | null;
  created_by: string | null;
}

describeApp('prompt versions', (get) => {
  const url = (botId: string, rest = '') => `/api/bots/${botId}/prompt-versions${rest}`;

  async function save(tenant: TenantFixture, botId: string, promptText: string, extra: object = {}) {
    const res = await get().app.inject({
      method: 'POST',
      url: url(botId),
      headers: tenant.owner.headers,
      payload: { prompt_text: promptText, ...extra },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ version: Version; current_prompt: string }>().version;
  }

  async function list(tenant: TenantFixture, botId: string) {
    const res = await get().app.inject({ method: 'GET', url: url(botId), headers: tenant.owner.headers });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{
      success: boolean;
      versions: Version[];
      current_version: Version | null;
      current_prompt: string;
    }>();
  }

  async function botPrompt(tenantId: string, botId: string) {
    const rows = await get().db.query<{ system_prompt: string }>(
      'SELECT system_prompt FROM bots WHERE tenant_id = $1 AND id = $2',
      [tenantId, botId],
    );
    return rows[0]!.system_prompt;
  }

  it('lists the initial version of a bot created with a prompt', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({ system_prompt: 'Erste Fassung' });
    const body = await list(tenant, bot.id);
    expect(body.success).toBe(true);
    expect(body.versions).toHaveLength(1);
    expect(body.current_version).toMatchObject({
      version_number: 1,
      is_current: true,
      prompt_text: 'Erste Fassung',
    });
    expect(body.current_prompt).toBe('Erste Fassung');
  });

  it('saves a version as current, numbered on, recording who saved it, and sets system_prompt', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({ system_prompt: 'Eins' });
    const res = await get().app.inject({
      method: 'POST',
      url: url(bot.id),
      headers: tenant.owner.headers,
      payload: { prompt_text: 'Zwei', version_name: 'Höflicher', change_notes: 'Ton angepasst' },
    });
    expect(res.statusCode).toBe(201);
    const body = res.json<{ success: boolean; version: Version; current_prompt: string }>();
    expect(body.success).toBe(true);
    expect(body.current_prompt).toBe('Zwei');
    expect(body.version).toMatchObject({
      version_number: 2,
      is_current: true,
      prompt_text: 'Zwei',
      version_name: 'Höflicher',
      change_notes: 'Ton angepasst',
      created_by: tenant.owner.id,
    });
    const listed = await list(tenant, bot.id);
    expect(listed.versions.map((v) => [v.version_number, v.is_current])).toEqual([
      [2, true],
      [1, false],
    ]);
    expect(listed.current_version?.id).toBe(body.version.id);
    expect(listed.current_prompt).toBe('Zwei');
    expect(await botPrompt(tenant.id, bot.id)).toBe('Zwei');
  });

  it('starts at 1 for a bot created without a prompt, and lists nothing before', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const empty = await list(tenant, bot.id);
    expect(empty.versions).toEqual([]);
    expect(empty.current_version).toBeNull();
    expect((await save(tenant, bot.id, 'Neu')).version_number).toBe(1);
  });

  it('numbers 20 concurrent saves 1…20 without gaps or duplicates, with exactly one current', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        get().app.inject({
          method: 'POST',
          url: url(bot.id),
          headers: tenant.owner.headers,
          payload: { prompt_text: `Fassung ${i}` },
        }),
      ),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    const rows = await get().db.query<{ version_number: number; is_current: boolean; prompt_text: string }>(
      'SELECT version_number, is_current, prompt_text FROM bot_prompt_versions WHERE bot_id = $1 ORDER BY version_number',
      [bot.id],
    );
    expect(rows.map((r) => r.version_number)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const current = rows.filter((r) => r.is_current);
    expect(current).toHaveLength(1);
    expect(current[0]!.version_number).toBe(20);
    expect(await botPrompt(tenant.id, bot.id)).toBe(current[0]!.prompt_text);
  });

  it('restores an earlier version: it becomes current and the bot prompt again', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({ system_prompt: 'Alt' });
    const first = (await list(tenant, bot.id)).versions[0]!;
    await save(tenant, bot.id, 'Neu');
    const res = await get().app.inject({
      method: 'POST',
      url: url(bot.id, `/${first.id}/restore`),
      headers: tenant.owner.headers,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      success: true,
      version: { id: first.id, is_current: true },
      current_prompt: 'Alt',
    });
    const listed = await list(tenant, bot.id);
    expect(listed.versions.filter((v) => v.is_current).map((v) => v.id)).toEqual([first.id]);
    expect(listed.current_prompt).toBe('Alt');
    // Restoring the current version again changes nothing.
    const again = await get().app.inject({
      method: 'POST',
      url: url(bot.id, `/${first.id}/restore`),
      headers: tenant.owner.headers,
    });
    expect(again.statusCode).toBe(200);
    expect((await list(tenant, bot.id)).versions.filter((v) => v.is_current)).toHaveLength(1);
  });

  it('deletes a version that is neither current nor the last', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({ system_prompt: 'Eins' });
    const first = (await list(tenant, bot.id)).versions[0]!;
    await save(tenant, bot.id, 'Zwei');
    const res = await get().app.inject({
      method: 'DELETE',
      url: url(bot.id, `/${first.id}`),
      headers: tenant.owner.headers,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ success: true, deleted_id: first.id });
    expect((await list(tenant, bot.id)).versions.map((v) => v.version_number)).toEqual([2]);
    // Numbering continues after the highest number, not after the count.
    expect((await save(tenant, bot.id, 'Drei')).version_number).toBe(3);
  });

  it('refuses to delete the current version (409) and keeps it', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({ system_prompt: 'Eins' });
    const second = await save(tenant, bot.id, 'Zwei');
    const res = await get().app.inject({
      method: 'DELETE',
      url: url(bot.id, `/${second.id}`),
      headers: tenant.owner.headers,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'conflict', details: { reason: 'current_version' } });
    expect(res.json<{ message: string }>().message).toMatch(/current version/);
    expect((await list(tenant, bot.id)).versions).toHaveLength(2);
  });

  it('refuses to delete the last remaining version (409) and keeps it', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({ system_prompt: 'Eins' });
    const only = (await list(tenant, bot.id)).versions[0]!;
    const res = await get().app.inject({
      method: 'DELETE',
      url: url(bot.id, `/${only.id}`),
      headers: tenant.owner.headers,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'conflict', details: { reason: 'last_version' } });
    expect(res.json<{ message: string }>().message).toMatch(/last remaining version/);
    const listed = await list(tenant, bot.id);
    expect(listed.versions.map((v) => v.id)).toEqual([only.id]);
    expect(listed.current_version?.id).toBe(only.id);
  });

  it('keeps exactly one current version in the database', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({ system_prompt: 'Eins' });
    const second = await save(tenant, bot.id, 'Zwei');
    await expect(
      get().db.query('UPDATE bot_prompt_versions SET is_current = false WHERE id = $1', [second.id]),
    ).rejects.toThrow(/exactly one current/);
    await expect(
      get().db.query('UPDATE bot_prompt_versions SET is_current = true WHERE bot_id = $1', [bot.id]),
    ).rejects.toThrow();
    await expect(
      get().db.query('DELETE FROM bot_prompt_versions WHERE id = $1', [second.id]),
    ).rejects.toThrow(/exactly one current/);
    const current = await get().db.query(
      'SELECT id FROM bot_prompt_versions WHERE bot_id = $1 AND is_current',
      [bot.id],
    );
    expect(current).toEqual([{ id: second.id }]);
  });

  it('validates the body and changes nothing on bad input', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({ system_prompt: 'Eins' });
    const cases: Array<[unknown, RegExp]> = [
      [{}, /prompt_text/],
      [{ prompt_text: '' }, /prompt_text/],
      [{ prompt_text: 42 }, /prompt_text/],
      [{ prompt_text: 'x', version_name: 'n'.repeat(101) }, /version_name/],
      [{ prompt_text: 'x', extra: true }, /extra/],
      [{ prompt_text: 'x'.repeat(100_001) }, /prompt_text/],
    ];
    for (const [payload, field] of cases) {
      const res = await get().app.inject({
        method: 'POST',
        url: url(bot.id),
        headers: tenant.owner.headers,
        payload: payload as object,
      });
      expect(res.statusCode, JSON.stringify(payload).slice(0, 60)).toBe(400);
      expect(res.json()).toMatchObject({ error: 'validation_error' });
      expect(res.json<{ message: string }>().message).toMatch(field);
    }
    expect((await list(tenant, bot.id)).versions).toHaveLength(1);
    expect(await botPrompt(tenant.id, bot.id)).toBe('Eins');
  });

  it('diffs two versions line by line, against the current one by default', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({ system_prompt: 'Hallo\nSei freundlich\nEnde\n' });
    const first = (await list(tenant, bot.id)).versions[0]!;
    const second = await save(tenant, bot.id, 'Hallo\nSei sehr freundlich\nEnde\nNeu\n');
    const res = await get().app.inject({
      method: 'GET',
      url: url(bot.id, `/${second.id}/diff?against=${first.id}`),
      headers: tenant.owner.headers,
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<{
      from: { id: string };
      to: { id: string };
      patch: string;
      changes: unknown[];
      stats: object;
    }>();
    expect(body.from.id).toBe(first.id);
    expect(body.to.id).toBe(second.id);
    expect(body.stats).toEqual({ added: 2, removed: 1, unchanged: 2 });
    expect(body.changes).toEqual([
      { type: 'unchanged', lines: ['Hallo'] },
      { type: 'removed', lines: ['Sei freundlich'] },
      { type: 'added', lines: ['Sei sehr freundlich'] },
      { type: 'unchanged', lines: ['Ende'] },
      { type: 'added', lines: ['Neu'] },
    ]);
    expect(body.patch).toContain('-Sei freundlich');
    expect(body.patch).toContain('+Sei sehr freundlich');

    const byDefault = await get().app.inject({
      method: 'GET',
      url: url(bot.id, `/${first.id}/diff`),
      headers: tenant.owner.headers,
    });
    expect(byDefault.statusCode).toBe(200);
    expect(byDefault.json()).toMatchObject({ from: { id: second.id }, to: { id: first.id } });

    const unknown = await get().app.inject({
      method: 'GET',
      url: url(bot.id, `/${first.id}/diff?against=not-a-uuid`),
      headers: tenant.owner.headers,
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('diffs by lines, not line ends: an appended line is the only change', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({ system_prompt: 'Hallo\r\nSei freundlich' });
    const first = (await list(tenant, bot.id)).versions[0]!;
    const second = await save(tenant, bot.id, 'Hallo\nSei freundlich\nAntworte kurz');
    const res = await get().app.inject({
      method: 'GET',
      url: url(bot.id, `/${second.id}/diff?against=${first.id}`),
      headers: tenant.owner.headers,
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<{ changes: unknown[]; stats: object; patch: string }>();
    expect(body.changes).toEqual([
      { type: 'unchanged', lines: ['Hallo', 'Sei freundlich'] },
      { type: 'added', lines: ['Antworte kurz'] },
    ]);
    expect(body.stats).toEqual({ added: 1, removed: 0, unchanged: 2 });
    expect(body.patch).not.toContain('-Sei freundlich');
  });

  it('needs a session: 401 without one on every endpoint', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({ system_prompt: 'Eins' });
    const v = (await list(tenant, bot.id)).versions[0]!;
    const requests = [
      { method: 'GET' as const, url: url(bot.id) },
      { method: 'POST' as const, url: url(bot.id), payload: { prompt_text: 'x' } },
      { method: 'POST' as const, url: url(bot.id, `/${v.id}/restore`) },
      { method: 'DELETE' as const, url: url(bot.id, `/${v.id}`) },
      { method: 'GET' as const, url: url(bot.id, `/${v.id}/diff`) },
    ];
    for (const request of requests) {
      const res = await get().app.inject(request);
      expect(res.statusCode, `${request.method} ${request.url}`).toBe(401);
    }
    // The tenant API key is not a dashboard session.
    const byKey = await get().app.inject({ method: 'GET', url: url(bot.id), headers: tenant.keyHeaders });
    expect(byKey.statusCode).toBe(401);
  });

  it('lets a viewer read but not write (403), and changes nothing', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot({ system_prompt: 'Eins' });
    const v = (await list(tenant, bot.id)).versions[0]!;
    const viewer = await tenant.user('viewer');
    expect(
      (await get().app.inject({ method: 'GET', url: url(bot.id), headers: viewer.headers })).statusCode,
    ).toBe(200);
    expect(
      (await get().app.inject({ method: 'GET', url: url(bot.id, `/${v.id}/diff`), headers: viewer.headers }))
        .statusCode,
    ).toBe(200);
    const writes = [
      { method: 'POST' as const, url: url(bot.id), payload: { prompt_text: 'x' } },
      { method: 'POST' as const, url: url(bot.id, `/${v.id}/restore`) },
      { method: 'DELETE' as const, url: url(bot.id, `/${v.id}`) },
    ];
    for (const request of writes) {
      const res = await get().app.inject({ ...request, headers: viewer.headers });
      expect(res.statusCode, `${request.method} ${request.url}`).toBe(403);
    }
    const editor = await tenant.user('editor');
    const byEditor = await get().app.inject({
      method: 'POST',
      url: url(bot.id),
      headers: editor.headers,
      payload: { prompt_text: 'Vom Editor' },
    });
    expect(byEditor.statusCode).toBe(201);
    expect(byEditor.json()).toMatchObject({ version: { created_by: editor.id } });
  });

  it("answers 404 for another tenant's bot or version and for malformed ids, changing nothing", async () => {
    const owner = await buildTenant(get().ctx);
    const other = await buildTenant(get().ctx);
    const bot = await owner.bot({ system_prompt: 'Geheim' });
    const v = (await list(owner, bot.id)).versions[0]!;
    const otherBot = await other.bot({ system_prompt: 'Anders' });
    const requests = [
      { method: 'GET' as const, url: url(bot.id) },
      { method: 'POST' as const, url: url(bot.id), payload: { prompt_text: 'Übernommen' } },
      { method: 'POST' as const, url: url(bot.id, `/${v.id}/restore`) },
      { method: 'DELETE' as const, url: url(bot.id, `/${v.id}`) },
      { method: 'GET' as const, url: url(bot.id, `/${v.id}/diff`) },
      // Own bot, but a version of another tenant's bot.
      { method: 'POST' as const, url: url(otherBot.id, `/${v.id}/restore`) },
      { method: 'DELETE' as const, url: url(otherBot.id, `/${v.id}`) },
      { method: 'GET' as const, url: url('not-a-uuid') },
      { method: 'POST' as const, url: url(otherBot.id, '/not-a-uuid/restore') },
      { method: 'DELETE' as const, url: url(otherBot.id, '/123') },
    ];
    for (const request of requests) {
      const res = await get().app.inject({ ...request, headers: other.owner.headers });
      expect(res.statusCode, `${request.method} ${request.url}`).toBe(404);
      expect(res.json()).toMatchObject({ error: 'not_found' });
    }
    const listed = await list(owner, bot.id);
    expect(listed.versions).toHaveLength(1);
    expect(listed.current_prompt).toBe('Geheim');
    expect(await botPrompt(other.id, otherBot.id)).toBe('Anders');
  });
});
