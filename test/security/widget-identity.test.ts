import { expect, it } from 'vitest';
import {
  VERIFIED_MAX_AGE_SECONDS,
  issueVisitorToken,
  readVisitorToken,
  signIdentityToken,
} from '../../src/modules/widget/tokens.js';
import { secretKeyring } from '../../src/shared/secrets.js';
import type { TestApp } from '../helpers/app.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { recordSecret } from '../helpers/log-sink.js';
import { SITE, startSession, widgetBot } from '../widget/helpers.js';

async function identitySecret(t: TestApp, tenant: TenantFixture, botId: string): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/bots/${botId}/widget/identity-secret`,
    headers: tenant.owner.headers,
  });
  expect(res.statusCode).toBe(200);
  const secret = res.json().identity_secret as string;
  recordSecret(secret);
  return secret;
}

const identity = (secret: string, visitorId = 'kunde-7') =>
  signIdentityToken(secret, { visitor_id: visitorId, exp: Math.floor(Date.now() / 1000) + 600 });

const transcript = (t: TestApp, token: string) =>
  t.app.inject({
    method: 'GET',
    url: '/v1/widget/conversation',
    headers: { origin: SITE, authorization: `Bearer ${token}` },
  });

const refresh = (t: TestApp, token: string) =>
  t.app.inject({
    method: 'POST',
    url: '/v1/widget/sessions/refresh',
    headers: { origin: SITE, authorization: `Bearer ${token}` },
  });

describeApp('widget: verified sessions follow the identity secret', (get) => {
  it('rotating the identity secret ends verified sessions at their next call; unverified go on', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const { botId, publishableKey } = await widgetBot(t, tenant);
    const secret = await identitySecret(t, tenant, botId);
    const verified = await startSession(t, publishableKey, { identity_token: identity(secret) });
    const anonymous = await startSession(t, publishableKey);
    expect((await transcript(t, verified.token)).statusCode).toBe(200);

    const rotated = await identitySecret(t, tenant, botId);
    const call = await transcript(t, verified.token);
    expect(call.statusCode).toBe(401);
    expect(call.json().code).toBe('visitor_identity_rotated');
    const renewed = await refresh(t, verified.token);
    expect(renewed.statusCode).toBe(401);
    expect(renewed.json().code).toBe('visitor_identity_rotated');
    // Unverified visitors are not touched; a new identity token under the new secret works.
    expect((await transcript(t, anonymous.token)).statusCode).toBe(200);
    expect((await refresh(t, anonymous.token)).statusCode).toBe(201);
    const again = await startSession(t, publishableKey, { identity_token: identity(rotated) });
    expect((await transcript(t, again.token)).statusCode).toBe(200);
  });

  it('a refresh never carries a verified session past its maximum age from the first token', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const { botId, publishableKey } = await widgetBot(t, tenant);
    const secret = await identitySecret(t, tenant, botId);
    const session = await startSession(t, publishableKey, { identity_token: identity(secret) });
    const keyring = secretKeyring(t.ctx.config);
    const read = readVisitorToken(keyring, session.token);
    if (!read.ok) throw new Error('token unreadable');
    const now = Math.floor(Date.now() / 1000);
    expect(read.claims.first).toBeGreaterThan(now - 60);

    // Refreshed again and again: `first` stays, so the session ends at the maximum age.
    const young = issueVisitorToken(keyring, {
      ...read.claims,
      first: now - VERIFIED_MAX_AGE_SECONDS + 3600,
      exp: now - 60,
    });
    const renewed = await refresh(t, young);
    expect(renewed.statusCode, renewed.body).toBe(201);
    const next = readVisitorToken(keyring, renewed.json().token as string);
    expect(next.ok && next.claims.first).toBe(now - VERIFIED_MAX_AGE_SECONDS + 3600);

    const old = issueVisitorToken(keyring, {
      ...read.claims,
      first: now - VERIFIED_MAX_AGE_SECONDS - 60,
      exp: now - 60,
    });
    const refused = await refresh(t, old);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().code).toBe('visitor_session_too_old');
    // A verified token without the fingerprint (made before it existed) is not accepted either.
    const { idf: _idf, ...unbound } = read.claims;
    const legacy = issueVisitorToken(keyring, unbound);
    expect((await transcript(t, legacy)).json().code).toBe('visitor_identity_rotated');
    // A new identity token starts a new session.
    const fresh = await startSession(t, publishableKey, { identity_token: identity(secret) });
    expect((await refresh(t, fresh.token)).statusCode).toBe(201);
  });
});
