import type { InjectOptions } from 'fastify';
import { expect, it } from 'vitest';
import { insertUser } from '../../src/modules/auth/repository.js';
import { ACCOUNT_DEACTIVATED } from '../../src/modules/auth/sessions.js';
import { USER_RULE_TEXT } from '../../src/modules/auth/users/rules.js';
import { findOwnerEmail } from '../../src/modules/reminders/repository.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type UserFixture } from '../helpers/factories.js';

const TEAM_FIELDS = [
  'created_at',
  'email',
  'first_name',
  'id',
  'is_active',
  'last_login_at',
  'last_name',
  'role',
].sort();

describeApp('team management', (get) => {
  const inject = (options: InjectOptions) => get().app.inject(options);
  const as = (user: UserFixture) => user.headers;
  const login = (email: string, password: string) =>
    inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password },
      remoteAddress: `10.7.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
    });
  const patch = (user: UserFixture, id: string, payload: Record<string, unknown>) =>
    inject({ method: 'PATCH', url: `/api/users/${id}`, headers: as(user), payload });
  const userRow = async (id: string) =>
    (
      await get().db.query<{ role: string; is_active: boolean }>(
        'SELECT role, is_active FROM users WHERE id = $1',
        [id],
      )
    )[0];
  const sessionCount = async (userId: string) =>
    (
      await get().db.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [
        userId,
      ])
    )[0]!.n;

  // ---------------------------------------------------------------- GET /api/users

  it('lists the tenant’s users newest first, without secrets and without other tenants', async () => {
    const tenant = await buildTenant(get().ctx);
    const other = await buildTenant(get().ctx);
    const editor = await tenant.user('editor');
    const res = await inject({ method: 'GET', url: '/api/users', headers: as(tenant.owner) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.next_cursor).toBeNull();
    expect(body.data.map((u: { id: string }) => u.id)).toEqual([editor.id, tenant.owner.id]);
    expect(Object.keys(body.data[0]).sort()).toEqual(TEAM_FIELDS);
    expect(body.data[0]).toMatchObject({
      email: editor.email,
      role: 'editor',
      is_active: true,
      last_login_at: null,
    });
    expect(res.body).not.toContain(other.owner.id);
    expect(res.body).not.toContain('$2b$');
    expect(res.body).not.toContain('password');
  });

  it('pages with a cursor; the first page holds 50 users by default', async () => {
    const tenant = await buildTenant(get().ctx);
    await get().db.transaction(async (tx) => {
      for (let i = 0; i < 51; i += 1) {
        await insertUser(tx, tenant.id, {
          email: `bulk-${i}-${tenant.id}@example.test`,
          passwordHash: 'x',
          role: 'viewer',
        });
      }
    });
    const first = await inject({ method: 'GET', url: '/api/users', headers: as(tenant.owner) });
    expect(first.json().data).toHaveLength(50);
    const cursor = first.json().next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    const second = await inject({
      method: 'GET',
      url: `/api/users?cursor=${cursor}`,
      headers: as(tenant.owner),
    });
    expect(second.json().data).toHaveLength(2);
    expect(second.json().next_cursor).toBeNull();
    const ids = [...first.json().data, ...second.json().data].map((u: { id: string }) => u.id);
    expect(new Set(ids).size).toBe(52);

    const small = await inject({ method: 'GET', url: '/api/users?limit=2', headers: as(tenant.owner) });
    expect(small.json().data).toHaveLength(2);
    const bad = await inject({ method: 'GET', url: '/api/users?cursor=nonsense', headers: as(tenant.owner) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('validation_error');
  });

  it('lets owners and admins list the team; editors and viewers get 403, strangers 401', async () => {
    const tenant = await buildTenant(get().ctx);
    expect((await inject({ method: 'GET', url: '/api/users' })).statusCode).toBe(401);
    for (const role of ['editor', 'viewer'] as const) {
      const res = await inject({ method: 'GET', url: '/api/users', headers: as(await tenant.user(role)) });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: 'forbidden' });
      expect(res.json().message).toContain('user:manage');
    }
    const admin = await tenant.user('admin');
    expect((await inject({ method: 'GET', url: '/api/users', headers: as(admin) })).statusCode).toBe(200);
  });

  // ---------------------------------------------------------------- PATCH /api/users/:id

  it('changes a role; deactivation ends the sessions at once and blocks sign-in; reactivation lifts it', async () => {
    const tenant = await buildTenant(get().ctx);
    const editor = await tenant.user('editor');
    const promoted = await patch(tenant.owner, editor.id, { role: 'admin' });
    expect(promoted.statusCode).toBe(200);
    expect(promoted.json()).toMatchObject({ id: editor.id, role: 'admin', is_active: true });
    // The role counts from the next request on: the session reads it afresh.
    expect((await inject({ method: 'GET', url: '/api/api-keys', headers: as(editor) })).statusCode).toBe(200);

    const second = await login(editor.email, editor.password);
    expect(second.statusCode).toBe(200);
    expect(await sessionCount(editor.id)).toBe(2);

    const off = await patch(tenant.owner, editor.id, { is_active: false });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({ is_active: false, role: 'admin' });
    expect(await sessionCount(editor.id)).toBe(0);
    expect((await inject({ method: 'GET', url: '/api/me', headers: as(editor) })).statusCode).toBe(401);
    const refused = await login(editor.email, editor.password);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({
      error: 'forbidden',
      code: 'account_deactivated',
      message: ACCOUNT_DEACTIVATED,
    });
    // A wrong password still reads as a wrong password: deactivation is told only to the account holder.
    expect((await login(editor.email, 'wrong-password')).statusCode).toBe(401);

    const on = await patch(tenant.owner, editor.id, { is_active: true, role: 'viewer' });
    expect(on.json()).toMatchObject({ is_active: true, role: 'viewer' });
    expect((await login(editor.email, editor.password)).statusCode).toBe(200);
  });

  it('never leaves the tenant without an active owner', async () => {
    const tenant = await buildTenant(get().ctx);
    const alone = await patch(tenant.owner, tenant.owner.id, { role: 'admin' });
    expect(alone.statusCode).toBe(409);
    expect(alone.json()).toEqual({
      error: 'conflict',
      code: 'last_owner',
      message: USER_RULE_TEXT.lastOwner,
    });

    const second = await tenant.user('owner');
    expect((await patch(tenant.owner, second.id, { role: 'editor' })).statusCode).toBe(200);
    expect((await patch(tenant.owner, tenant.owner.id, { role: 'viewer' })).statusCode).toBe(409);

    // With a second owner again, the first may step down; then the second is the last one.
    expect((await patch(tenant.owner, second.id, { role: 'owner' })).statusCode).toBe(200);
    expect((await patch(tenant.owner, tenant.owner.id, { role: 'admin' })).statusCode).toBe(200);
    expect((await patch(second, second.id, { role: 'admin' })).statusCode).toBe(409);
    expect((await patch(second, tenant.owner.id, { is_active: false })).statusCode).toBe(200);
    expect(await userRow(second.id)).toEqual({ role: 'owner', is_active: true });
  });

  it('settles concurrent demotions of the last two owners in the database: one wins, one gets 409', async () => {
    for (let round = 0; round < 3; round += 1) {
      const tenant = await buildTenant(get().ctx);
      const second = await tenant.user('owner');
      // Each of the two owners steps down at the same moment: only one of them may.
      const [a, b] = await Promise.all([
        patch(tenant.owner, tenant.owner.id, { role: 'admin' }),
        patch(second, second.id, { role: 'editor' }),
      ]);
      expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
      const owners = await get().db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM users WHERE tenant_id = $1 AND role = 'owner' AND is_active`,
        [tenant.id],
      );
      expect(owners[0]!.n).toBe(1);
    }
  });

  it('sends trial reminders to the earliest active owner, passing over a deactivated one', async () => {
    const tenant = await buildTenant(get().ctx);
    const second = await tenant.user('owner');
    expect((await findOwnerEmail(get().db, tenant.id))?.email).toBe(tenant.owner.email);
    expect((await patch(second, tenant.owner.id, { is_active: false })).statusCode).toBe(200);
    expect((await findOwnerEmail(get().db, tenant.id))?.email).toBe(second.email);
  });

  it('refuses deactivating oneself and an empty change', async () => {
    const tenant = await buildTenant(get().ctx);
    const admin = await tenant.user('admin');
    const self = await patch(admin, admin.id, { is_active: false });
    expect(self.statusCode).toBe(409);
    expect(self.json().message).toBe(USER_RULE_TEXT.selfDeactivate);
    const empty = await patch(tenant.owner, admin.id, {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json().message).toContain('role');
    const unknown = await patch(tenant.owner, admin.id, { email: 'x@example.test' });
    expect(unknown.statusCode).toBe(400);
    expect(await userRow(admin.id)).toEqual({ role: 'admin', is_active: true });
  });

  it('keeps owners in the hands of owners: an admin can neither change an owner nor grant the role', async () => {
    const tenant = await buildTenant(get().ctx);
    const admin = await tenant.user('admin');
    const editor = await tenant.user('editor');
    const demote = await patch(admin, tenant.owner.id, { role: 'viewer' });
    expect(demote.statusCode).toBe(403);
    expect(demote.json().message).toBe(USER_RULE_TEXT.ownerChange);
    expect((await patch(admin, tenant.owner.id, { is_active: false })).statusCode).toBe(403);
    const grant = await patch(admin, editor.id, { role: 'owner' });
    expect(grant.statusCode).toBe(403);
    expect(grant.json().message).toBe(USER_RULE_TEXT.ownerGrant);
    expect(await userRow(tenant.owner.id)).toEqual({ role: 'owner', is_active: true });
    expect(await userRow(editor.id)).toEqual({ role: 'editor', is_active: true });
    // Admins manage the other roles.
    expect((await patch(admin, editor.id, { role: 'viewer' })).statusCode).toBe(200);
  });

  it('answers 404 for a user of another tenant or a malformed id, 403 without user:manage, 401 without session', async () => {
    const tenant = await buildTenant(get().ctx);
    const other = await buildTenant(get().ctx);
    const foreign = await patch(tenant.owner, other.owner.id, { is_active: false });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({
      error: 'not_found',
      code: 'not_found',
      message: 'User not found',
      details: { resource: 'user' },
    });
    expect(await userRow(other.owner.id)).toEqual({ role: 'owner', is_active: true });
    expect(await sessionCount(other.owner.id)).toBe(1);
    expect((await patch(tenant.owner, 'not-a-uuid', { role: 'viewer' })).statusCode).toBe(404);

    const viewer = await tenant.user('viewer');
    for (const role of ['editor', 'viewer'] as const) {
      const res = await patch(await tenant.user(role), viewer.id, { role: 'admin' });
      expect(res.statusCode).toBe(403);
    }
    expect(await userRow(viewer.id)).toEqual({ role: 'viewer', is_active: true });
    const anonymous = await inject({
      method: 'PATCH',
      url: `/api/users/${viewer.id}`,
      payload: { role: 'admin' },
    });
    expect(anonymous.statusCode).toBe(401);
  });

  // ---------------------------------------------------------------- POST /api/me/password

  it('changes the own password: old one stops, new one works, other sessions end, this one stays', async () => {
    const tenant = await buildTenant(get().ctx);
    const viewer = await tenant.user('viewer');
    const other = await login(viewer.email, viewer.password);
    const otherToken = other.json().token as string;
    const res = await inject({
      method: 'POST',
      url: '/api/me/password',
      headers: as(viewer),
      payload: { current_password: viewer.password, new_password: 'a brand new secret' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await inject({ method: 'GET', url: '/api/me', headers: as(viewer) })).statusCode).toBe(200);
    const ended = await inject({
      method: 'GET',
      url: '/api/me',
      headers: { authorization: `Bearer ${otherToken}` },
    });
    expect(ended.statusCode).toBe(401);
    expect((await login(viewer.email, viewer.password)).statusCode).toBe(401);
    expect((await login(viewer.email, 'a brand new secret')).statusCode).toBe(200);
  });

  it('refuses a wrong current password or a weak new one and changes nothing; guessing is throttled', async () => {
    const tenant = await buildTenant(get().ctx);
    const user = await tenant.user('editor');
    const change = (payload: Record<string, unknown>) =>
      inject({ method: 'POST', url: '/api/me/password', headers: as(user), payload });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ current_password: user.password, new_password: 'short' }, 'new_password'],
      [{ current_password: user.password, new_password: 'ö'.repeat(50) }, '72 bytes'],
      [{ current_password: user.password, new_password: user.password }, 'differ'],
      [{ new_password: 'long enough' }, 'current_password'],
    ];
    for (const [payload, text] of cases) {
      const res = await change(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().message).toContain(text);
    }
    const wrong = await change({ current_password: 'not-my-password', new_password: 'long enough' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({
      error: 'validation_error',
      code: 'password_wrong',
      message: "Field 'current_password' is not your current password",
      details: { field: 'current_password' },
    });
    for (let i = 0; i < 4; i += 1) {
      expect((await change({ current_password: `wrong-${i}`, new_password: 'long enough' })).statusCode).toBe(
        400,
      );
    }
    const throttled = await change({ current_password: user.password, new_password: 'long enough' });
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers['retry-after']).toBeDefined();
    expect((await login(user.email, user.password)).statusCode).toBe(200);
  });

  it('needs a session to change a password', async () => {
    const res = await inject({
      method: 'POST',
      url: '/api/me/password',
      payload: { current_password: 'whatever', new_password: 'long enough' },
    });
    expect(res.statusCode).toBe(401);
    const tenant = await buildTenant(get().ctx);
    const key = await inject({
      method: 'POST',
      url: '/api/me/password',
      headers: tenant.keyHeaders,
      payload: { current_password: tenant.owner.password, new_password: 'long enough' },
    });
    expect(key.statusCode).toBe(401);
    expect((await login(tenant.owner.email, tenant.owner.password)).statusCode).toBe(200);
  });

  // ---------------------------------------------------------------- PATCH /api/me

  it('every user sets their own name and picture; /api/me shows them; null clears the picture', async () => {
    const tenant = await buildTenant(get().ctx);
    const viewer = await tenant.user('viewer');
    const avatar = 'https://cdn.example.com/team/mara.png?v=2';
    const res = await inject({
      method: 'PATCH',
      url: '/api/me',
      headers: as(viewer),
      payload: { first_name: '  Mara ', last_name: 'Kühn', avatar_url: avatar },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: viewer.id,
      first_name: 'Mara',
      last_name: 'Kühn',
      avatar_url: avatar,
    });
    expect(res.body).not.toContain('password');
    const me = await inject({ method: 'GET', url: '/api/me', headers: as(viewer) });
    expect(me.json().user).toMatchObject({ first_name: 'Mara', avatar_url: avatar });
    // Only the fields given change; null clears.
    const cleared = await inject({
      method: 'PATCH',
      url: '/api/me',
      headers: as(viewer),
      payload: { avatar_url: null },
    });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json()).toMatchObject({ first_name: 'Mara', last_name: 'Kühn', avatar_url: null });
  });

  it('refuses a picture that is not a plain https address and changes nothing', async () => {
    const tenant = await buildTenant(get().ctx);
    const user = await tenant.user('agent');
    const avatar = 'https://cdn.example.com/a.png';
    expect(
      (await inject({ method: 'PATCH', url: '/api/me', headers: as(user), payload: { avatar_url: avatar } }))
        .statusCode,
    ).toBe(200);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ avatar_url: 'http://cdn.example.com/a.png' }, 'field_pattern'],
      [{ avatar_url: 'data:image/png;base64,AAAA' }, 'field_pattern'],
      [{ avatar_url: 'https://user:secret@cdn.example.com/a.png' }, 'url_credentials'],
      [{ avatar_url: 'https://[bad/a.png' }, 'url_invalid'],
      [{ avatar_url: `https://cdn.example.com/${'a'.repeat(2000)}` }, 'field_too_long'],
      [{ first_name: 'x'.repeat(101) }, 'field_too_long'],
      [{ role: 'owner' }, 'field_unknown'],
      [{}, 'nothing_to_change'],
    ];
    for (const [payload, code] of cases) {
      const res = await inject({ method: 'PATCH', url: '/api/me', headers: as(user), payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().code, JSON.stringify(payload)).toBe(code);
    }
    const row = (
      await get().db.query<{ avatar_url: string; role: string }>(
        'SELECT avatar_url, role FROM users WHERE id = $1',
        [user.id],
      )
    )[0];
    expect(row).toEqual({ avatar_url: avatar, role: 'agent' });
  });

  it('needs a session to change the profile, and changes only the own one', async () => {
    const tenant = await buildTenant(get().ctx);
    const other = await buildTenant(get().ctx);
    const payload = { avatar_url: 'https://cdn.example.com/x.png' };
    expect((await inject({ method: 'PATCH', url: '/api/me', payload })).statusCode).toBe(401);
    expect(
      (await inject({ method: 'PATCH', url: '/api/me', headers: tenant.keyHeaders, payload })).statusCode,
    ).toBe(401);
    const res = await inject({ method: 'PATCH', url: '/api/me', headers: as(other.owner), payload });
    expect(res.json().id).toBe(other.owner.id);
    const rows = await get().db.query<{ avatar_url: string | null }>(
      'SELECT avatar_url FROM users WHERE id = $1',
      [tenant.owner.id],
    );
    expect(rows[0]!.avatar_url).toBeNull();
  });

  it('lists admins as holders of user:manage in /api/me', async () => {
    const tenant = await buildTenant(get().ctx);
    for (const [role, holds] of [
      ['owner', true],
      ['admin', true],
      ['editor', false],
      ['viewer', false],
    ] as const) {
      const user = role === 'owner' ? tenant.owner : await tenant.user(role);
      const me = await inject({ method: 'GET', url: '/api/me', headers: as(user) });
      expect(me.json().permissions.includes('user:manage'), role).toBe(holds);
    }
  });
});
