import type { InjectOptions } from 'fastify';
import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';

const CSRF_MESSAGE =
  'Writes signed in by the session cookie need the header X-Requested-With (any value, e.g. parley)';

describeApp('cross-site request forgery guard for cookie sessions', (get) => {
  const inject = (options: InjectOptions) => get().app.inject(options);
  const cookieOf = (tenant: TenantFixture) => ({ parley_session: tenant.owner.token });
  const botCount = async (tenantId: string) =>
    (
      await get().db.query<{ n: number }>('SELECT count(*)::int AS n FROM bots WHERE tenant_id = $1', [
        tenantId,
      ])
    )[0]!.n;

  it('refuses a cookie write without X-Requested-With with 403 and changes nothing', async () => {
    const tenant = await buildTenant(get().ctx);
    for (const headers of [{}, { 'x-requested-with': '' }, { 'x-requested-with': '   ' }]) {
      const res = await inject({
        method: 'POST',
        url: '/api/bots',
        cookies: cookieOf(tenant),
        headers,
        payload: { name: 'Forged' },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'forbidden', code: 'csrf_header_missing', message: CSRF_MESSAGE });
    }
    expect(await botCount(tenant.id)).toBe(0);

    const viewer = await tenant.user('viewer');
    const forgedRole = await inject({
      method: 'PATCH',
      url: `/api/users/${viewer.id}`,
      cookies: cookieOf(tenant),
      payload: { role: 'admin' },
    });
    expect(forgedRole.statusCode).toBe(403);
    const forgedPassword = await inject({
      method: 'POST',
      url: '/api/me/password',
      cookies: cookieOf(tenant),
      payload: { current_password: tenant.owner.password, new_password: 'taken over!' },
    });
    expect(forgedPassword.statusCode).toBe(403);
    const forgedLogout = await inject({ method: 'POST', url: '/api/auth/logout', cookies: cookieOf(tenant) });
    expect(forgedLogout.statusCode).toBe(403);
    const forgedDelete = await inject({
      method: 'DELETE',
      url: `/api/api-keys/${tenant.apiKeyId}`,
      cookies: cookieOf(tenant),
    });
    expect(forgedDelete.statusCode).toBe(403);

    const users = await inject({ method: 'GET', url: '/api/users', headers: tenant.owner.headers });
    expect(users.json().data.find((u: { id: string }) => u.id === viewer.id).role).toBe('viewer');
    expect((await get().ctx.apiKeys.verify(tenant.apiKey)).tenantId).toBe(tenant.id);
    expect((await inject({ method: 'GET', url: '/api/me', cookies: cookieOf(tenant) })).statusCode).toBe(200);
  });

  it('accepts a cookie write that carries X-Requested-With, and cookie reads without it', async () => {
    const tenant = await buildTenant(get().ctx);
    const res = await inject({
      method: 'POST',
      url: '/api/bots',
      cookies: cookieOf(tenant),
      headers: { 'x-requested-with': 'parley' },
      payload: { name: 'From the dashboard' },
    });
    expect(res.statusCode).toBe(201);
    expect(await botCount(tenant.id)).toBe(1);
    const list = await inject({ method: 'GET', url: '/api/bots', cookies: cookieOf(tenant) });
    expect(list.statusCode).toBe(200);
    const logout = await inject({
      method: 'POST',
      url: '/api/auth/logout',
      cookies: cookieOf(tenant),
      headers: { 'x-requested-with': 'XMLHttpRequest' },
    });
    expect(logout.statusCode).toBe(204);
  });

  it('needs no header for writes with a Bearer session token or an API key', async () => {
    const tenant = await buildTenant(get().ctx);
    const bearer = await inject({
      method: 'POST',
      url: '/api/bots',
      headers: tenant.owner.headers,
      payload: { name: 'Scripted' },
    });
    expect(bearer.statusCode).toBe(201);
    // An explicit Bearer session token wins over a cookie sent along with it.
    const both = await inject({
      method: 'POST',
      url: '/api/bots',
      headers: tenant.owner.headers,
      cookies: { parley_session: 'pst_stale-cookie' },
      payload: { name: 'Scripted too' },
    });
    expect(both.statusCode).toBe(201);
    const v1 = await inject({
      method: 'POST',
      url: '/v1/bots',
      headers: { ...tenant.keyHeaders, 'content-type': 'application/json' },
      payload: { name: 'Integrator' },
    });
    expect(v1.statusCode).toBe(201);
    const bot = bearer.json() as { id: string };
    // A bot created in the dashboard starts as an inactive draft: activated before it chats.
    const activated = await inject({
      method: 'PATCH',
      url: `/api/bots/${bot.id}`,
      headers: tenant.owner.headers,
      payload: { is_active: true, status: 'active' },
    });
    expect(activated.statusCode).toBe(200);
    const chat = await inject({
      method: 'POST',
      url: `/api/bot-chat/${bot.id}/chat`,
      headers: { 'x-api-key': tenant.apiKey },
      payload: { message: 'Hallo' },
    });
    expect(chat.statusCode).toBe(200);
    expect(await botCount(tenant.id)).toBe(3);
  });

  it('lets the login through without the header, but only with a JSON body a cross-site form cannot send', async () => {
    const tenant = await buildTenant(get().ctx);
    const json = await inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: tenant.owner.email, password: tenant.owner.password },
    });
    expect(json.statusCode).toBe(200);
    expect(json.cookies.some((c) => c.name === 'parley_session')).toBe(true);
    // What an HTML form with enctype="text/plain" would post: JSON-looking text.
    const form = await inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'text/plain' },
      payload: JSON.stringify({ email: tenant.owner.email, password: tenant.owner.password }),
    });
    expect(form.statusCode).toBe(400);
    expect(form.cookies.some((c) => c.name === 'parley_session')).toBe(false);
    const urlencoded = await inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `email=${encodeURIComponent(tenant.owner.email)}&password=${encodeURIComponent(tenant.owner.password)}`,
    });
    expect(urlencoded.statusCode).toBe(415);
    expect(urlencoded.cookies.some((c) => c.name === 'parley_session')).toBe(false);
  });
});
