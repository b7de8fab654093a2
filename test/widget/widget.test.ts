import { expect, it } from 'vitest';
import { signIdentityToken } from '../../src/modules/widget/tokens.js';
import { parseSse } from '../chat/helpers.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { recordSecret } from '../helpers/log-sink.js';
import { send, SITE, startSession, widgetBot } from './helpers.js';

describeApp('website widget', (get) => {
  it('settings: created switched off, changed by bot:edit, read by bot:view; another tenant gets 404', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const bot = await tenant.bot();
    const url = `/api/bots/${bot.id}/widget`;
    const first = await t.app.inject({ method: 'GET', url, headers: tenant.owner.headers });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ enabled: false, allowed_origins: [], identity_secret_set: false });
    expect(first.json().publishable_key).toMatch(/^pk_/);

    const viewer = await tenant.user('viewer');
    expect((await t.app.inject({ method: 'GET', url, headers: viewer.headers })).statusCode).toBe(200);
    const refused = await t.app.inject({
      method: 'PUT',
      url,
      headers: viewer.headers,
      payload: { enabled: true },
    });
    expect(refused.statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(401);

    const put = await t.app.inject({
      method: 'PUT',
      url,
      headers: tenant.owner.headers,
      payload: {
        enabled: true,
        allowed_origins: ['https://Kurse.Example:443/', 'http://localhost:8080'],
        theme: { primary_color: '#112233', greeting: 'Hallo!' },
        daily_message_budget: 50,
      },
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({
      enabled: true,
      allowed_origins: ['https://kurse.example', 'http://localhost:8080'],
      theme: { primary_color: '#112233', greeting: 'Hallo!' },
      daily_message_budget: 50,
    });
    const bad = await t.app.inject({
      method: 'PUT',
      url,
      headers: tenant.owner.headers,
      payload: { enabled: false, allowed_origins: ['kurse.example/pfad'] },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'field_format', details: { field: 'allowed_origins' } });
    // Nothing changed by the refused request.
    expect((await t.app.inject({ method: 'GET', url, headers: tenant.owner.headers })).json().enabled).toBe(
      true,
    );

    const other = await buildTenant(t.ctx);
    for (const [method, path] of [
      ['GET', url],
      ['PUT', url],
      ['POST', `${url}/publishable-key`],
      ['POST', `${url}/identity-secret`],
      ['GET', `${url}/visitors/wv_x/export`],
      ['DELETE', `${url}/visitors/wv_x`],
    ] as const) {
      const res = await t.app.inject({
        method,
        url: path,
        headers: other.owner.headers,
        payload: method === 'PUT' ? {} : undefined,
      });
      expect(res.statusCode, `${method} ${path}`).toBe(404);
    }
  });

  it('session, chat as JSON and as a stream, transcript after reload', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const { botId, publishableKey } = await widgetBot(t, tenant, { theme: { greeting: 'Willkommen!' } });
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/widget/sessions',
      headers: { origin: SITE },
      payload: { publishable_key: publishableKey },
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers['access-control-allow-origin']).toBe(SITE);
    expect(String(res.headers.vary)).toMatch(/Origin/i);
    const session = res.json();
    recordSecret(session.token);
    expect(session).toMatchObject({
      visitor_id: expect.stringMatching(/^wv_/),
      conversation_id: null,
      verified: false,
    });
    expect(session.bot).toMatchObject({ language: 'de', greeting: 'Willkommen!' });
    const headers = { origin: SITE, authorization: `Bearer ${session.token}` };

    const json = await send(t, { headers }, { text: 'Hallo, wann ist der nächste Kurs?' });
    expect(json.statusCode).toBe(200);
    expect(json.headers['ratelimit-limit']).toBeDefined();
    const reply = json.json();
    expect(reply.channel).toBe('widget');
    const [conversation] = await t.db.query<{ channel: string; sender_id: string }>(
      'SELECT channel, sender_id FROM conversations WHERE id = $1',
      [reply.conversation_id],
    );
    expect(conversation).toEqual({ channel: 'widget', sender_id: session.visitor_id });

    const streamed = await send(t, { headers }, { text: 'Und danach?' }, { accept: 'text/event-stream' });
    expect(streamed.statusCode).toBe(200);
    expect(streamed.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = parseSse(streamed.body);
    expect(events.at(-1)!.event).toBe('done');
    expect((events.at(-1)!.data as { conversation_id: string }).conversation_id).toBe(reply.conversation_id);

    // After a reload: the same visitor (its token) resumes the same conversation.
    const again = await startSession(t, publishableKey, { visitor_id: session.visitor_id }, headers);
    expect(again.visitor_id).toBe(session.visitor_id);
    expect(again.conversation_id).toBe(reply.conversation_id);
    const transcript = await t.app.inject({
      method: 'GET',
      url: '/v1/widget/conversation',
      headers: again.headers,
    });
    expect(transcript.statusCode).toBe(200);
    const body = transcript.json();
    expect(body.conversation_id).toBe(reply.conversation_id);
    expect(body.messages.map((m: { from: string }) => m.from)).toEqual(['visitor', 'bot', 'visitor', 'bot']);
    expect(body.messages[0].text).toBe('Hallo, wann ist der nächste Kurs?');

    const refreshed = await t.app.inject({ method: 'POST', url: '/v1/widget/sessions/refresh', headers });
    expect(refreshed.statusCode).toBe(201);
    expect(refreshed.json()).toMatchObject({
      visitor_id: session.visitor_id,
      conversation_id: reply.conversation_id,
    });

    // Tenant export and deletion of the visitor's data.
    const exported = await t.app.inject({
      method: 'GET',
      url: `/api/bots/${botId}/widget/visitors/${session.visitor_id}/export`,
      headers: tenant.owner.headers,
    });
    expect(exported.statusCode).toBe(200);
    expect(exported.json().conversations[0].messages).toHaveLength(4);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/bots/${botId}/widget/visitors/${session.visitor_id}`,
      headers: tenant.owner.headers,
    });
    expect(deleted.json()).toEqual({ deleted_conversations: 1 });
    const gone = await t.app.inject({
      method: 'GET',
      url: '/v1/widget/conversation',
      headers: again.headers,
    });
    expect(gone.json()).toEqual({ conversation_id: null, status: null, messages: [] });
  });

  it('the visitor deletes their own conversation', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const { publishableKey } = await widgetBot(t, tenant);
    const session = await startSession(t, publishableKey);
    const { conversation_id: id } = (await send(t, session, { text: 'Hallo' })).json();
    const res = await t.app.inject({
      method: 'DELETE',
      url: '/v1/widget/conversation',
      headers: session.headers,
    });
    expect(res.statusCode).toBe(204);
    expect(await t.db.query('SELECT 1 FROM conversations WHERE id = $1', [id])).toEqual([]);
  });

  it('origins: not listed → 403 without CORS, no Origin → 403; preflight answers listed origins only', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const { publishableKey } = await widgetBot(t, tenant);
    const foreign = await t.app.inject({
      method: 'POST',
      url: '/v1/widget/sessions',
      headers: { origin: 'https://evil.example' },
      payload: { publishable_key: publishableKey },
    });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().code).toBe('origin_not_allowed');
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    const none = await t.app.inject({
      method: 'POST',
      url: '/v1/widget/sessions',
      payload: { publishable_key: publishableKey },
    });
    expect(none.statusCode).toBe(403);
    expect(none.json().code).toBe('origin_missing');

    const session = await startSession(t, publishableKey);
    const noOrigin = await t.app.inject({
      method: 'GET',
      url: '/v1/widget/conversation',
      headers: { authorization: session.headers.authorization! },
    });
    expect(noOrigin.statusCode).toBe(403);
    const otherOrigin = await t.app.inject({
      method: 'GET',
      url: '/v1/widget/conversation',
      headers: { ...session.headers, origin: 'https://evil.example' },
    });
    expect(otherOrigin.statusCode).toBe(403);
    expect(otherOrigin.json().code).toBe('origin_not_allowed');

    const preflight = (origin: string) =>
      t.app.inject({
        method: 'OPTIONS',
        url: '/v1/widget/messages',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization',
        },
      });
    const listed = await preflight(SITE);
    expect(listed.statusCode).toBe(204);
    expect(listed.headers['access-control-allow-origin']).toBe(SITE);
    expect(String(listed.headers['access-control-allow-headers'])).toContain('authorization');
    expect(String(listed.headers.vary)).toMatch(/Origin/i);
    const unlisted = await preflight('https://evil.example');
    expect(unlisted.statusCode).toBe(403);
    expect(unlisted.headers['access-control-allow-origin']).toBeUndefined();

    // Removing the origin from the list ends its sessions at their next call.
    await t.app.inject({
      method: 'PUT',
      url: `/api/bots/${(await t.db.query<{ bot_id: string }>('SELECT bot_id FROM widget_settings WHERE publishable_key = $1', [publishableKey]))[0]!.bot_id}/widget`,
      headers: tenant.owner.headers,
      payload: { allowed_origins: ['https://andere.example'] },
    });
    expect(
      (await t.app.inject({ method: 'GET', url: '/v1/widget/conversation', headers: session.headers }))
        .statusCode,
    ).toBe(403);
  });

  it('tokens: bad, tampered or expired → 401; a rotated publishable key is refused; a disabled widget 403', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const { botId, publishableKey } = await widgetBot(t, tenant);
    const session = await startSession(t, publishableKey);
    const call = (authorization: string) =>
      t.app.inject({
        method: 'GET',
        url: '/v1/widget/conversation',
        headers: { origin: SITE, authorization },
      });
    expect((await call('Bearer wvt1.e30.AAAA')).statusCode).toBe(401);
    const [prefix, payload, signature] = session.token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, visitor_id: 'wv_other' })).toString('base64url');
    expect((await call(`Bearer ${prefix}.${forged}.${signature}`)).statusCode).toBe(401);
    expect((await call('')).statusCode).toBe(401);

    const expiredConfig = await import('../../src/modules/widget/tokens.js');
    const { secretKeyring } = await import('../../src/shared/secrets.js');
    const expired = expiredConfig.issueVisitorToken(secretKeyring(t.ctx.config), {
      ...claims,
      exp: Math.floor(Date.now() / 1000) - 5,
    });
    const expiredRes = await call(`Bearer ${expired}`);
    expect(expiredRes.statusCode).toBe(401);
    expect(expiredRes.json().code).toBe('visitor_token_expired');
    // Within the refresh window it can still be refreshed.
    const refreshed = await t.app.inject({
      method: 'POST',
      url: '/v1/widget/sessions/refresh',
      headers: { origin: SITE, authorization: `Bearer ${expired}` },
    });
    expect(refreshed.statusCode).toBe(201);
    recordSecret(refreshed.json().token);

    const rotated = await t.app.inject({
      method: 'POST',
      url: `/api/bots/${botId}/widget/publishable-key`,
      headers: tenant.owner.headers,
    });
    expect(rotated.json().publishable_key).not.toBe(publishableKey);
    const old = await call(session.headers.authorization!);
    expect(old.statusCode).toBe(401);
    expect(old.json().code).toBe('publishable_key_invalid');
    const oldKey = await t.app.inject({
      method: 'POST',
      url: '/v1/widget/sessions',
      headers: { origin: SITE },
      payload: { publishable_key: publishableKey },
    });
    expect(oldKey.statusCode).toBe(401);

    await t.app.inject({
      method: 'PUT',
      url: `/api/bots/${botId}/widget`,
      headers: tenant.owner.headers,
      payload: { enabled: false },
    });
    const off = await t.app.inject({
      method: 'POST',
      url: '/v1/widget/sessions',
      headers: { origin: SITE },
      payload: { publishable_key: rotated.json().publishable_key },
    });
    expect(off.statusCode).toBe(403);
    expect(off.json().code).toBe('widget_disabled');
  });

  it('visitors are kept apart: no resuming another visitor id, no reading another conversation', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const { publishableKey } = await widgetBot(t, tenant);
    const a = await startSession(t, publishableKey);
    await send(t, a, { text: 'Geheimnis von A' });
    const b = await startSession(t, publishableKey);
    // B claims A's id: with B's own token or none, it gets a new id and sees nothing of A.
    for (const headers of [b.headers, { origin: SITE }]) {
      const claimed = await startSession(t, publishableKey, { visitor_id: a.visitor_id }, headers);
      expect(claimed.visitor_id).not.toBe(a.visitor_id);
      expect(claimed.conversation_id).toBeNull();
      const read = await t.app.inject({
        method: 'GET',
        url: '/v1/widget/conversation',
        headers: claimed.headers,
      });
      expect(read.json().messages).toEqual([]);
    }
    const readB = await t.app.inject({ method: 'GET', url: '/v1/widget/conversation', headers: b.headers });
    expect(JSON.stringify(readB.json())).not.toContain('Geheimnis');

    // Another tenant's key starts sessions for its own bot only; tokens do not cross bots.
    const other = await buildTenant(t.ctx);
    const otherBot = await widgetBot(t, other);
    const c = await startSession(t, otherBot.publishableKey, { visitor_id: a.visitor_id }, a.headers);
    expect(c.visitor_id).not.toBe(a.visitor_id);
    const readC = await t.app.inject({ method: 'GET', url: '/v1/widget/conversation', headers: c.headers });
    expect(readC.json().messages).toEqual([]);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/v1/widget/sessions',
          headers: { origin: SITE },
          payload: { publishable_key: 'pk_doesnotexist' },
        })
      ).statusCode,
    ).toBe(401);
  });

  it('verified visitors: identity token required when switched on; history across devices', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const { botId, publishableKey } = await widgetBot(t, tenant, { verified_only: true });
    const unsigned = await t.app.inject({
      method: 'POST',
      url: '/v1/widget/sessions',
      headers: { origin: SITE },
      payload: { publishable_key: publishableKey },
    });
    expect(unsigned.statusCode).toBe(401);
    expect(unsigned.json().code).toBe('identity_required');

    const created = await t.app.inject({
      method: 'POST',
      url: `/api/bots/${botId}/widget/identity-secret`,
      headers: tenant.owner.headers,
    });
    expect(created.statusCode).toBe(200);
    const secret = created.json().identity_secret as string;
    recordSecret(secret);
    const settings = await t.app.inject({
      method: 'GET',
      url: `/api/bots/${botId}/widget`,
      headers: tenant.owner.headers,
    });
    expect(settings.json().identity_secret_set).toBe(true);
    expect(settings.body).not.toContain(secret);
    const [stored] = await t.db.query<{ identity_secret: string }>(
      'SELECT identity_secret FROM widget_settings WHERE bot_id = $1',
      [botId],
    );
    expect(stored!.identity_secret).not.toContain(secret);

    const exp = Math.floor(Date.now() / 1000) + 600;
    const token = signIdentityToken(secret, {
      visitor_id: 'kunde-42',
      name: 'Eva',
      email: 'eva@example.test',
      exp,
    });
    const first = await startSession(t, publishableKey, { identity_token: token });
    expect(first).toMatchObject({ visitor_id: 'kunde-42' });
    await send(t, first, { text: 'Vom Laptop' });
    // Another device, same identity: the same conversation.
    const second = await startSession(t, publishableKey, { identity_token: token });
    const transcript = await t.app.inject({
      method: 'GET',
      url: '/v1/widget/conversation',
      headers: second.headers,
    });
    expect(transcript.json().messages[0].text).toBe('Vom Laptop');

    for (const bad of [
      signIdentityToken('falsches-geheimnis', { visitor_id: 'kunde-42', exp }),
      signIdentityToken(secret, { visitor_id: 'kunde-42', exp: Math.floor(Date.now() / 1000) - 1 }),
      signIdentityToken(secret, { visitor_id: 'wv_anonym', exp }),
      token.split('.').slice(0, 2).join('.') + '.',
      Buffer.from('{"alg":"none"}').toString('base64url') + '.' + token.split('.')[1] + '.',
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/widget/sessions',
        headers: { origin: SITE },
        payload: { publishable_key: publishableKey, identity_token: bad },
      });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('identity_invalid');
    }
  });

  it('daily budget → 429 with a German text and Retry-After; message length as the chat endpoint', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const { publishableKey } = await widgetBot(t, tenant, { daily_message_budget: 1 });
    const session = await startSession(t, publishableKey);
    expect((await send(t, session, { text: 'eins' })).statusCode).toBe(200);
    const over = await send(t, session, { text: 'zwei' });
    expect(over.statusCode).toBe(429);
    expect(over.json()).toMatchObject({
      code: 'widget_budget_exhausted',
      message: expect.stringContaining('Tageslimit'),
    });
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    const long = await send(t, session, { text: 'x'.repeat(10_001) });
    expect(long.statusCode).toBe(400);
    const empty = await send(t, session, {});
    expect(empty.statusCode).toBe(400);
  });
});

describeApp(
  'website widget rate limits',
  (get) => {
    it('per visitor: over the limit → 429 with Retry-After and RateLimit headers', async () => {
      const t = get();
      const tenant = await buildTenant(t.ctx);
      const { publishableKey } = await widgetBot(t, tenant);
      const session = await startSession(t, publishableKey);
      const first = await send(t, session, { text: 'eins' });
      expect(first.statusCode).toBe(200);
      expect(first.headers['ratelimit-limit']).toBeDefined();
      await send(t, session, { text: 'zwei' });
      const third = await send(t, session, { text: 'drei' });
      expect(third.statusCode).toBe(429);
      expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
      expect(third.json()).toMatchObject({ error: 'rate_limited', details: { limit: 'visitor' } });
      // Another visitor of the same bot is not held up by the first one's limit.
      const other = await startSession(t, publishableKey);
      expect((await send(t, other, { text: 'hallo' })).statusCode).toBe(200);
    });
  },
  { env: { WIDGET_RATE_LIMIT_VISITOR: '2', WIDGET_RATE_LIMIT_IP: '1000', WIDGET_RATE_LIMIT_KEY: '1000' } },
);
