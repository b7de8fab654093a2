import type { InjectOptions } from 'fastify';
import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';

describeApp('dashboard sign-in and API keys', (get) => {
  const inject = (options: InjectOptions) => get().app.inject(options);

  it('logs in with e-mail and password, sets an HttpOnly cookie, and the token works as Bearer too', async () => {
    const tenant = await buildTenant(get().ctx);
    const login = await inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: tenant.owner.email.toUpperCase(), password: tenant.owner.password },
    });
    expect(login.statusCode).toBe(200);
    const body = login.json();
    expect(body.token).toMatch(/^pst_/);
    expect(body.user).toMatchObject({ id: tenant.owner.id, tenant_id: tenant.id, role: 'owner' });
    expect(body.user).not.toHaveProperty('password_hash');
    const cookie = login.cookies.find((c) => c.name === 'parley_session');
    expect(cookie).toMatchObject({ value: body.token, httpOnly: true, sameSite: 'Lax' });

    const viaCookie = await inject({
      method: 'GET',
      url: '/api/me',
      cookies: { parley_session: body.token },
    });
    expect(viaCookie.statusCode).toBe(200);
    expect(viaCookie.json().permissions).toContain('bot:edit');
    const viaBearer = await inject({
      method: 'GET',
      url: '/api/me',
      headers: { authorization: `Bearer ${body.token}` },
    });
    expect(viaBearer.json().tenant.id).toBe(tenant.id);
    // The sign-in answers what GET /api/me answers: the dashboard needs no second request.
    expect(body.permissions).toEqual(viaCookie.json().permissions);
    expect(body.tenant).toEqual(viaCookie.json().tenant);
  });

  it("answers an agent's sign-in with the agent's own permissions", async () => {
    const tenant = await buildTenant(get().ctx);
    const agent = await tenant.user('agent');
    const login = await inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: agent.email, password: agent.password },
    });
    expect(login.statusCode).toBe(200);
    expect(login.json().permissions).toContain('conversation:view');
    expect(login.json().permissions).not.toContain('usage:view');
  });

  it('refuses a wrong password and an unknown e-mail alike', async () => {
    const tenant = await buildTenant(get().ctx);
    for (const payload of [
      { email: tenant.owner.email, password: 'wrong-password' },
      { email: 'nobody@example.test', password: 'whatever1' },
    ]) {
      const res = await inject({ method: 'POST', url: '/api/auth/login', payload });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({
        error: 'unauthorized',
        code: 'login_failed',
        message: 'E-mail or password is wrong',
      });
    }
  });

  it('rate-limits wrong passwords per account and address: after 5 failures even the right one waits', async () => {
    const tenant = await buildTenant(get().ctx);
    const attempt = (password: string) =>
      inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: tenant.owner.email, password },
        remoteAddress: '10.9.0.1',
      });
    for (let i = 0; i < 5; i += 1) expect((await attempt('wrong-password')).statusCode).toBe(401);
    const locked = await attempt(tenant.owner.password);
    expect(locked.statusCode).toBe(429);
    expect(locked.headers['retry-after']).toBeDefined();
    expect(locked.json().error).toBe('rate_limited');
  });

  it('validates the login body', async () => {
    const res = await inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'a@b.test' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_error' });
    expect(res.json().message).toContain('password');
  });

  it('logs out: the session stops working', async () => {
    const tenant = await buildTenant(get().ctx);
    const out = await inject({ method: 'POST', url: '/api/auth/logout', headers: tenant.owner.headers });
    expect(out.statusCode).toBe(204);
    const me = await inject({ method: 'GET', url: '/api/me', headers: tenant.owner.headers });
    expect(me.statusCode).toBe(401);
  });

  it('refuses a missing, unknown or expired session with 401', async () => {
    const tenant = await buildTenant(get().ctx);
    expect((await inject({ method: 'GET', url: '/api/me' })).statusCode).toBe(401);
    const unknown = await inject({
      method: 'GET',
      url: '/api/me',
      headers: { authorization: 'Bearer pst_nope' },
    });
    expect(unknown.statusCode).toBe(401);
    // An API key is not a dashboard login.
    const key = await inject({ method: 'GET', url: '/api/me', headers: tenant.keyHeaders });
    expect(key.statusCode).toBe(401);
    await get().db.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [
      tenant.owner.id,
    ]);
    expect((await inject({ method: 'GET', url: '/api/me', headers: tenant.owner.headers })).statusCode).toBe(
      401,
    );
  });

  it('generates an API key once, lists only metadata, and the new key replaces the old one', async () => {
    const tenant = await buildTenant(get().ctx);
    const created = await inject({
      method: 'POST',
      url: '/api/api-keys',
      headers: tenant.owner.headers,
      payload: { name: 'Workflow', expires_in_days: 30 },
    });
    expect(created.statusCode).toBe(201);
    const { key, api_key: record } = created.json();
    expect(key).toMatch(/^svc_/);
    expect(record).toMatchObject({ name: 'Workflow', key_prefix: key.slice(0, 12), is_active: true });
    expect(new Date(record.expires_at).getTime()).toBeGreaterThan(Date.now() + 29 * 86400_000);

    await expect(get().ctx.apiKeys.verify(tenant.apiKey)).rejects.toMatchObject({
      error: 'Ungültiger API Key',
    });
    expect((await get().ctx.apiKeys.verify(key)).tenantId).toBe(tenant.id);

    const list = await inject({ method: 'GET', url: '/api/api-keys', headers: tenant.owner.headers });
    expect(list.statusCode).toBe(200);
    const text = list.body;
    expect(text).not.toContain(key);
    expect(text).not.toContain('key_hash');
    expect(text).not.toContain('$2b$');
    const keys = list.json().data as { id: string; is_active: boolean }[];
    expect(keys).toHaveLength(2);
    expect(keys.filter((k) => k.is_active).map((k) => k.id)).toEqual([record.id]);
    expect(list.json().next_cursor).toBeNull();
    const first = await inject({
      method: 'GET',
      url: '/api/api-keys?limit=1',
      headers: tenant.owner.headers,
    });
    expect(first.json().data).toHaveLength(1);
    const cursor = first.json().next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    const second = await inject({
      method: 'GET',
      url: `/api/api-keys?limit=1&cursor=${cursor}`,
      headers: tenant.owner.headers,
    });
    expect(second.json().data.map((k: { id: string }) => k.id)).toEqual([keys[1]!.id]);
    expect(second.json().next_cursor).toBeNull();
  });

  it('revokes a key at once and answers 404 for another tenant’s key or a malformed id', async () => {
    const tenant = await buildTenant(get().ctx);
    const other = await buildTenant(get().ctx);
    const foreign = await inject({
      method: 'DELETE',
      url: `/api/api-keys/${other.apiKeyId}`,
      headers: tenant.owner.headers,
    });
    expect(foreign.statusCode).toBe(404);
    expect((await get().ctx.apiKeys.verify(other.apiKey)).tenantId).toBe(other.id);
    const malformed = await inject({
      method: 'DELETE',
      url: '/api/api-keys/not-a-uuid',
      headers: tenant.owner.headers,
    });
    expect(malformed.statusCode).toBe(404);

    const own = await inject({
      method: 'DELETE',
      url: `/api/api-keys/${tenant.apiKeyId}`,
      headers: tenant.owner.headers,
    });
    expect(own.statusCode).toBe(204);
    await expect(get().ctx.apiKeys.verify(tenant.apiKey)).rejects.toMatchObject({ statusCode: 401 });
  });

  it('lets only owners and admins manage keys', async () => {
    const tenant = await buildTenant(get().ctx);
    for (const role of ['editor', 'viewer'] as const) {
      const user = await tenant.user(role);
      const res = await inject({ method: 'GET', url: '/api/api-keys', headers: user.headers });
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe('forbidden');
      const post = await inject({ method: 'POST', url: '/api/api-keys', headers: user.headers, payload: {} });
      expect(post.statusCode).toBe(403);
    }
    const admin = await tenant.user('admin');
    expect((await inject({ method: 'GET', url: '/api/api-keys', headers: admin.headers })).statusCode).toBe(
      200,
    );
    expect((await inject({ method: 'POST', url: '/api/api-keys' })).statusCode).toBe(401);
  });

  it('rejects bad key requests and changes nothing', async () => {
    const tenant = await buildTenant(get().ctx);
    const cases = [
      { expires_at: '2001-01-01T00:00:00Z' },
      { expires_in_days: 0 },
      { scope: 'all' },
      { expires_at: '2999-01-01T00:00:00Z', expires_in_days: 3 },
    ];
    for (const payload of cases) {
      const res = await inject({
        method: 'POST',
        url: '/api/api-keys',
        headers: tenant.owner.headers,
        payload,
      });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error).toBe('validation_error');
    }
    const unknownField = await inject({
      method: 'POST',
      url: '/api/api-keys',
      headers: tenant.owner.headers,
      payload: { scope: 'all' },
    });
    expect(unknownField.json().message).toContain("'scope'");
    expect((await get().ctx.apiKeys.verify(tenant.apiKey)).tenantId).toBe(tenant.id);
  });
});
