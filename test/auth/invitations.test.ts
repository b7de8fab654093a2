import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { INVITATION_TEXT } from '../../src/modules/auth/invitations/rules.js';
import { USER_RULE_TEXT } from '../../src/modules/auth/users/rules.js';
import { describeApp, startApp, stopApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/db.js';
import { buildTenant, type UserFixture } from '../helpers/factories.js';
import { recordSecret } from '../helpers/log-sink.js';

const INVITATION_FIELDS = [
  'created_at',
  'email',
  'expired',
  'expires_at',
  'id',
  'invited_by',
  'role',
  'sent_at',
].sort();
const ISSUED_FIELDS = [...INVITATION_FIELDS, 'accept_url', 'delivery'].sort();

/** The token of an accept link (it travels in the fragment). */
function tokenOf(acceptUrl: string): string {
  const token = new URL(acceptUrl).hash.slice(1);
  recordSecret(token);
  return token;
}

/** Everything of a response that may not depend on the address: status, header names and values, body shape. */
function observable(res: LightMyRequestResponse) {
  const headers = { ...res.headers };
  // Per response, whatever the address: the time and a random request id.
  delete headers.date;
  if (headers['x-request-id']) headers['x-request-id'] = 'random';
  const body = res.json() as Record<string, unknown>;
  return {
    status: res.statusCode,
    headers,
    shape: Object.fromEntries(Object.entries(body).map(([k, v]) => [k, v === null ? 'null' : typeof v])),
    fixed: { role: body.role, expired: body.expired, delivery: body.delivery, sent: body.sent_at !== null },
  };
}

/** Two addresses of equal length: one fresh, one that another tenant's owner signs in with. */
function sameLength(taken: string): string {
  const fresh = `fresh${randomUUID()}${randomUUID()}`.slice(0, taken.indexOf('@'));
  return `${fresh}${taken.slice(taken.indexOf('@'))}`;
}

describeApp('team invitations', (get) => {
  const inject = (options: InjectOptions) => get().app.inject(options);
  const invite = (user: UserFixture | undefined, payload: Record<string, unknown>) =>
    inject({ method: 'POST', url: '/api/invitations', headers: user?.headers ?? {}, payload });
  const accept = (payload: Record<string, unknown>) =>
    inject({ method: 'POST', url: '/api/invitations/accept', payload });
  const preview = (token: string) =>
    inject({ method: 'POST', url: '/api/invitations/preview', payload: { token } });
  const login = (email: string, password: string) =>
    inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password },
      remoteAddress: `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
    });
  const pending = async (user: UserFixture) =>
    (await inject({ method: 'GET', url: '/api/invitations', headers: user.headers })).json().data as {
      id: string;
      email: string;
      expired: boolean;
    }[];
  const members = async (tenantId: string) =>
    (await get().db.query<{ email: string }>('SELECT email FROM users WHERE tenant_id = $1', [tenantId])).map(
      (r) => r.email,
    );

  it('answers an address of another tenant exactly like a fresh one: status, headers and body shape', async () => {
    const tenant = await buildTenant(get().ctx);
    const other = await buildTenant(get().ctx);
    const taken = other.owner.email;
    const fresh = sameLength(taken);
    expect(fresh).toHaveLength(taken.length);
    const forTaken = await invite(tenant.owner, { email: taken, role: 'editor' });
    const forFresh = await invite(tenant.owner, { email: fresh, role: 'editor' });
    expect(forTaken.statusCode).toBe(201);
    expect(observable(forTaken)).toEqual(observable(forFresh));
    expect(Object.keys(forTaken.json()).sort()).toEqual(ISSUED_FIELDS);
    expect(forTaken.json()).toMatchObject({ email: taken, delivery: 'link', sent_at: null, expired: false });
    expect(forTaken.json().accept_url).toMatch(/^http:\/\/localhost:\d+\/invitation#[\w-]{43}$/);
    // Both wait in the list alike.
    const list = await pending(tenant.owner);
    expect(list.map((i) => i.email).sort()).toEqual([fresh, taken].sort());
    expect(Object.keys(list[0]!).sort()).toEqual(INVITATION_FIELDS);
    expect(JSON.stringify(list)).not.toContain('token');
  });

  it('lets the invited person accept with their own password and names; the link then stops working', async () => {
    const tenant = await buildTenant(get().ctx);
    const email = `ada-${randomUUID()}@example.test`;
    const issued = (await invite(tenant.owner, { email, role: 'editor' })).json();
    const token = tokenOf(issued.accept_url);

    const shown = await preview(token);
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toEqual({
      email,
      role: 'editor',
      tenant_name: expect.stringMatching(/^Tenant /),
      expires_at: issued.expires_at,
    });
    const days = (new Date(issued.expires_at).getTime() - Date.now()) / 86400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);

    const accepted = await accept({
      token,
      password: 'correct horse',
      first_name: 'Ada',
      last_name: 'Lovelace',
    });
    expect(accepted.statusCode).toBe(201);
    expect(accepted.json()).toEqual({ email, tenant_name: shown.json().tenant_name });
    expect(accepted.body).not.toContain('correct horse');

    const signedIn = await login(email, 'correct horse');
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json().user).toMatchObject({
      tenant_id: tenant.id,
      role: 'editor',
      first_name: 'Ada',
      last_name: 'Lovelace',
    });
    const team = await inject({ method: 'GET', url: '/api/users', headers: tenant.owner.headers });
    const member = team.json().data.find((u: { email: string }) => u.email === email);
    expect(member).toMatchObject({ role: 'editor', is_active: true, first_name: 'Ada' });
    expect(Date.now() - new Date(member.last_login_at).getTime()).toBeLessThan(60_000);
    expect(await pending(tenant.owner)).toEqual([]);
    const again = await accept({ token, password: 'another one' });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({
      error: 'not_found',
      code: 'invitation_unknown',
      message: INVITATION_TEXT.unknown,
    });
    expect((await preview(token)).statusCode).toBe(404);
  });

  it('refuses acceptance by an address that has an account elsewhere, to the link holder only; the invitation stays pending', async () => {
    const tenant = await buildTenant(get().ctx);
    const other = await buildTenant(get().ctx);
    const issued = (
      await invite(tenant.owner, { email: other.owner.email.toUpperCase(), role: 'viewer' })
    ).json();
    const res = await accept({ token: tokenOf(issued.accept_url), password: 'long enough' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      error: 'conflict',
      code: 'address_taken',
      message: INVITATION_TEXT.addressTaken,
    });
    expect(await members(tenant.id)).toEqual([tenant.owner.email]);
    expect((await pending(tenant.owner)).map((i) => i.id)).toEqual([issued.id]);
    // The other account is untouched: its own password still works.
    expect((await login(other.owner.email, other.owner.password)).statusCode).toBe(200);
  });

  it('expires a link after seven days; a resent invitation has a new link and the old one stops', async () => {
    const tenant = await buildTenant(get().ctx);
    const email = `late-${randomUUID()}@example.test`;
    const issued = (await invite(tenant.owner, { email, role: 'viewer' })).json();
    const oldToken = tokenOf(issued.accept_url);
    await get().db.query(
      "UPDATE user_invitations SET expires_at = now() - interval '1 second' WHERE id = $1",
      [issued.id],
    );
    expect((await pending(tenant.owner))[0]).toMatchObject({ id: issued.id, expired: true });
    const expired = await preview(oldToken);
    expect(expired.statusCode).toBe(410);
    expect(expired.json().message).toBe(INVITATION_TEXT.expired);
    const refused = await accept({ token: oldToken, password: 'long enough' });
    expect(refused.statusCode).toBe(410);
    expect(await members(tenant.id)).toEqual([tenant.owner.email]);

    const admin = await tenant.user('admin');
    const resent = await inject({
      method: 'POST',
      url: `/api/invitations/${issued.id}/resend`,
      headers: admin.headers,
    });
    expect(resent.statusCode).toBe(200);
    expect(resent.json()).toMatchObject({
      id: issued.id,
      expired: false,
      invited_by: admin.id,
      delivery: 'link',
    });
    const newToken = tokenOf(resent.json().accept_url);
    expect(newToken).not.toBe(oldToken);
    expect((await preview(oldToken)).statusCode).toBe(404);
    expect((await accept({ token: newToken, password: 'long enough' })).statusCode).toBe(201);
  });

  it('revokes an invitation: its link stops at once and it leaves the list', async () => {
    const tenant = await buildTenant(get().ctx);
    const issued = (
      await invite(tenant.owner, { email: `gone-${randomUUID()}@example.test`, role: 'viewer' })
    ).json();
    const token = tokenOf(issued.accept_url);
    const revoked = await inject({
      method: 'DELETE',
      url: `/api/invitations/${issued.id}`,
      headers: tenant.owner.headers,
    });
    expect(revoked.statusCode).toBe(204);
    expect(await pending(tenant.owner)).toEqual([]);
    expect((await accept({ token, password: 'long enough' })).statusCode).toBe(404);
    const twice = await inject({
      method: 'DELETE',
      url: `/api/invitations/${issued.id}`,
      headers: tenant.owner.headers,
    });
    expect(twice.statusCode).toBe(404);
  });

  it('refuses bad invitations and bad acceptances with a clear message and changes nothing', async () => {
    const tenant = await buildTenant(get().ctx);
    const colleague = await tenant.user('editor');
    const ok = { email: `x-${randomUUID()}@example.test`, role: 'viewer' };
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ ...ok, email: 'not-an-email' }, 400, 'email'],
      [{ ...ok, role: 'superuser' }, 400, 'role'],
      [{ ...ok, password: 'long enough' }, 400, "'password'"],
      [{ email: ok.email }, 400, 'role'],
      // Members of this tenant are this tenant's own data.
      [{ ...ok, email: colleague.email.toUpperCase() }, 409, INVITATION_TEXT.memberExists],
    ];
    for (const [payload, status, text] of cases) {
      const res = await invite(tenant.owner, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(status);
      expect(res.json().error).toBe(status === 409 ? 'conflict' : 'validation_error');
      expect(res.json().message).toContain(text);
    }
    expect(await pending(tenant.owner)).toEqual([]);

    const issued = (await invite(tenant.owner, ok)).json();
    const duplicate = await invite(tenant.owner, { ...ok, email: ok.email.toUpperCase() });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json().message).toBe(INVITATION_TEXT.pending);

    const token = tokenOf(issued.accept_url);
    for (const [payload, text] of [
      [{ token, password: 'short' }, 'password'],
      [{ token, password: 'ä'.repeat(40) }, '72 bytes'],
      [{ token, password: 'long enough', role: 'owner' }, "'role'"],
    ] as const) {
      const res = await accept(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().message).toContain(text);
    }
    const unknown = await accept({ token: 'x'.repeat(43), password: 'long enough' });
    expect(unknown.statusCode).toBe(404);
    expect(await members(tenant.id)).toEqual(expect.arrayContaining([tenant.owner.email, colleague.email]));
    expect(await members(tenant.id)).toHaveLength(2);
  });

  it('lets only owners invite owners; admins invite the other roles; editors, viewers and strangers nothing', async () => {
    const tenant = await buildTenant(get().ctx);
    const admin = await tenant.user('admin');
    const payload = (role: string) => ({ email: `${role}-${randomUUID()}@example.test`, role });
    const byAdmin = await invite(admin, payload('owner'));
    expect(byAdmin.statusCode).toBe(403);
    expect(byAdmin.json()).toEqual({
      error: 'forbidden',
      code: 'owner_grant_refused',
      message: USER_RULE_TEXT.ownerGrant,
      details: { field: 'role' },
    });
    for (const role of ['admin', 'editor', 'viewer']) {
      expect((await invite(admin, payload(role))).statusCode).toBe(201);
    }
    const ownerInvitation = (await invite(tenant.owner, payload('owner'))).json();
    expect(ownerInvitation.role).toBe('owner');
    // An admin can neither resend nor revoke an owner's invitation.
    for (const [method, url] of [
      ['POST', `/api/invitations/${ownerInvitation.id}/resend`],
      ['DELETE', `/api/invitations/${ownerInvitation.id}`],
    ] as const) {
      const res = await inject({ method, url, headers: admin.headers });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
    }
    for (const role of ['editor', 'viewer'] as const) {
      const user = await tenant.user(role);
      expect((await invite(user, payload('viewer'))).statusCode).toBe(403);
      expect(
        (await inject({ method: 'GET', url: '/api/invitations', headers: user.headers })).statusCode,
      ).toBe(403);
      const del = await inject({
        method: 'DELETE',
        url: `/api/invitations/${ownerInvitation.id}`,
        headers: user.headers,
      });
      expect(del.statusCode).toBe(403);
    }
    expect((await invite(undefined, payload('viewer'))).statusCode).toBe(401);
    expect((await inject({ method: 'GET', url: '/api/invitations' })).statusCode).toBe(401);
    expect(
      (await inject({ method: 'DELETE', url: `/api/invitations/${ownerInvitation.id}` })).statusCode,
    ).toBe(401);
    expect(
      (await inject({ method: 'POST', url: `/api/invitations/${ownerInvitation.id}/resend` })).statusCode,
    ).toBe(401);
    expect((await pending(tenant.owner)).map((i) => i.id)).toContain(ownerInvitation.id);
  });

  it("answers 404 for another tenant's invitation or a malformed id, and never lists it", async () => {
    const tenant = await buildTenant(get().ctx);
    const other = await buildTenant(get().ctx);
    const theirs = (
      await invite(other.owner, { email: `theirs-${randomUUID()}@example.test`, role: 'viewer' })
    ).json();
    for (const [method, url] of [
      ['POST', `/api/invitations/${theirs.id}/resend`],
      ['DELETE', `/api/invitations/${theirs.id}`],
      ['POST', '/api/invitations/not-a-uuid/resend'],
      ['DELETE', '/api/invitations/not-a-uuid'],
    ] as const) {
      const res = await inject({ method, url, headers: tenant.owner.headers });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    expect(await pending(tenant.owner)).toEqual([]);
    expect((await pending(other.owner)).map((i) => i.id)).toEqual([theirs.id]);
    // The other tenant's link still works: nothing was renewed or revoked.
    expect((await preview(tokenOf(theirs.accept_url))).statusCode).toBe(200);
  });

  it('no longer adds users with a password chosen by the manager', async () => {
    const tenant = await buildTenant(get().ctx);
    const res = await inject({
      method: 'POST',
      url: '/api/users',
      headers: tenant.owner.headers,
      payload: { email: `direct-${randomUUID()}@example.test`, password: 'long enough', role: 'viewer' },
    });
    expect(res.statusCode).toBe(404);
    expect(await members(tenant.id)).toEqual([tenant.owner.email]);
  });
});

interface ReceivedMail {
  to: string[];
  raw: string;
}

describeEachBackend('team invitations by e-mail (SMTP)', (getDatabase) => {
  let smtp: SMTPServer;
  let port = 0;
  let current: TestApp;
  const received: ReceivedMail[] = [];

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        let raw = '';
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => (raw += chunk));
        stream.on('end', () => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    port = (smtp.server.address() as AddressInfo).port;
    current = await startApp(getDatabase(), {
      env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Parley <team@parley.test>' },
    });
  });
  afterAll(async () => {
    if (current) await stopApp(current);
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  const linkIn = (mail: ReceivedMail) => {
    const unfolded = mail.raw.replace(/=\r?\n/g, '');
    const match = /https?:\/\/\S+\/invitation#([\w-]{43})/.exec(unfolded);
    if (!match) throw new Error(`no link in ${mail.raw}`);
    recordSecret(match[1]!);
    return match[1]!;
  };

  it('mails the link to the address, answers the inviter the same for a taken and a fresh address, and never shows the link', async () => {
    const tenant = await buildTenant(current.ctx);
    const other = await buildTenant(current.ctx);
    const taken = other.owner.email;
    const fresh = sameLength(taken);
    const before = received.length;
    const forTaken = await current.app.inject({
      method: 'POST',
      url: '/api/invitations',
      headers: tenant.owner.headers,
      payload: { email: taken, role: 'viewer' },
    });
    const forFresh = await current.app.inject({
      method: 'POST',
      url: '/api/invitations',
      headers: tenant.owner.headers,
      payload: { email: fresh, role: 'viewer' },
    });
    expect(forTaken.statusCode).toBe(201);
    expect(observable(forTaken)).toEqual(observable(forFresh));
    expect(forTaken.json()).toMatchObject({ delivery: 'email', accept_url: null });
    expect(forTaken.json().sent_at).toEqual(expect.any(String));
    const mails = received.slice(before);
    expect(mails.map((m) => m.to)).toEqual([[taken], [fresh]]);
    expect(mails[0]!.raw).toContain('From: Parley <team@parley.test>');

    // The fresh address accepts through the link in its mail.
    const token = linkIn(mails[1]!);
    const accepted = await current.app.inject({
      method: 'POST',
      url: '/api/invitations/accept',
      payload: { token, password: 'long enough', first_name: 'Fritz' },
    });
    expect(accepted.statusCode).toBe(201);
    expect(accepted.json().email).toBe(fresh);

    // Resending mails a new link; the list never shows one.
    const resent = await current.app.inject({
      method: 'POST',
      url: `/api/invitations/${forTaken.json().id}/resend`,
      headers: tenant.owner.headers,
    });
    expect(resent.statusCode).toBe(200);
    expect(resent.json().accept_url).toBeNull();
    expect(received.at(-1)!.to).toEqual([taken]);
    expect(linkIn(received.at(-1)!)).not.toBe(linkIn(mails[0]!));
  });

  it('keeps the invitation when the mail server is unreachable and says so (503); a resend can deliver it later', async () => {
    const database = getDatabase();
    const unreachable = await startApp(database, { env: { SMTP_URL: 'smtp://127.0.0.1:1' } });
    try {
      const tenant = await buildTenant(unreachable.ctx);
      const email = `later-${randomUUID()}@example.test`;
      const res = await unreachable.app.inject({
        method: 'POST',
        url: '/api/invitations',
        headers: tenant.owner.headers,
        payload: { email, role: 'viewer' },
      });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ error: 'service_unavailable', message: INVITATION_TEXT.mailFailed });
      const list = await current.app.inject({
        method: 'GET',
        url: '/api/invitations',
        headers: tenant.owner.headers,
      });
      expect(list.json().data).toEqual([expect.objectContaining({ email, sent_at: null })]);
      const resent = await current.app.inject({
        method: 'POST',
        url: `/api/invitations/${list.json().data[0].id}/resend`,
        headers: tenant.owner.headers,
      });
      expect(resent.statusCode).toBe(200);
      expect(received.at(-1)!.to).toEqual([email]);
    } finally {
      await stopApp(unreachable);
    }
  });
});
