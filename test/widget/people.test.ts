import { describe, expect, it, onTestFinished } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { describeApp, startApp, stopApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { recordSecret } from '../helpers/log-sink.js';
import { sendChat } from '../chat/helpers.js';
import { seedConversation } from '../conversations/seed.js';
import { fanoutOf, tenantTopic, type FanoutEvent } from '../../src/coordination/fanout.js';
import { signIdentityToken } from '../../src/modules/widget/tokens.js';
import { availability, hoursProblem, type BusinessHours } from '../../src/modules/widget/business-hours.js';
import { deviceOf } from '../../src/modules/inbox/visitor.js';
import { SITE, send, startSession, widgetBot, type Session } from './helpers.js';

const ASK_PERSON = 'Ich möchte mit einem Mitarbeiter sprechen';

async function identity(t: TestApp, tenant: TenantFixture, botId: string, claims: Record<string, unknown>) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/bots/${botId}/widget/identity-secret`,
    headers: tenant.owner.headers,
  });
  const secret = res.json().identity_secret as string;
  recordSecret(secret);
  return signIdentityToken(secret, { exp: Math.floor(Date.now() / 1000) + 600, ...claims } as never);
}

/** A widget conversation handed over to people; its id. */
async function handedOver(t: TestApp, session: Session): Promise<string> {
  const res = await send(t, session, {
    text: ASK_PERSON,
    context: { page_url: `${SITE}/kurse`, language: 'de-DE' },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ conversation_id: string }>().conversation_id;
}

const inbox = (t: TestApp, method: 'GET' | 'POST', url: string, headers: object, payload?: object) =>
  t.app.inject({ method, url, headers: headers as Record<string, string>, ...(payload ? { payload } : {}) });

describe('business hours', () => {
  const week: BusinessHours = {
    time_zone: 'Europe/Berlin',
    hours: [1, 2, 3, 4, 5].map((day) => ({ day, open: '09:00', close: '17:00' })),
  };
  it.each([
    ['Monday 10:00 Berlin (summer)', '2026-06-01T08:00:00Z', true, null],
    ['Monday 08:59 Berlin', '2026-06-01T06:59:00Z', false, '2026-06-01T07:00:00.000Z'],
    ['Friday 17:00 Berlin: closed until Monday', '2026-06-05T15:00:00Z', false, '2026-06-08T07:00:00.000Z'],
    ['Saturday in winter', '2026-12-05T12:00:00Z', false, '2026-12-07T08:00:00.000Z'],
  ])('%s', (_name, at, open, next) => {
    expect(availability(week, new Date(at))).toEqual({ open, next_open_at: next });
  });
  it('without hours people answer any time; empty hours never; bad hours are named', () => {
    expect(availability(null, new Date())).toEqual({ open: true, next_open_at: null });
    expect(availability({ time_zone: 'UTC', hours: [] }, new Date())).toEqual({
      open: false,
      next_open_at: null,
    });
    expect(hoursProblem({ time_zone: 'Mars/Olympus', hours: [] })).toMatch(/time zone/);
    expect(hoursProblem({ time_zone: 'UTC', hours: [{ day: 1, open: '10:00', close: '09:00' }] })).toMatch(
      /close after/,
    );
    expect(hoursProblem(week)).toBeUndefined();
  });
});

describe('deviceOf', () => {
  it.each([
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36',
      'Chrome on Android',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      'Safari on iPhone',
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0',
      'Firefox on Windows',
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36 Edg/126.0',
      'Edge on Windows',
    ],
    [null, null],
  ])('%s', (agent, device) => expect(deviceOf(agent)).toBe(device));
});

describeApp('widget: people, the inbox team', (get) => {
  it('a person’s reply is from "person" with their name in the transcript; typing reaches the inbox', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const { publishableKey } = await widgetBot(t, tenant);
    const session = await startSession(t, publishableKey);
    const id = await handedOver(t, session);

    // The visitor types: the inbox's tenant topic hears it.
    const heard: FanoutEvent[] = [];
    const stop = await fanoutOf(t.ctx.coordination).subscribe(tenantTopic(tenant.id), (e) => heard.push(e));
    const typing = await t.app.inject({ method: 'POST', url: '/v1/widget/typing', headers: session.headers });
    expect(typing.statusCode, typing.body).toBe(200);
    await expect
      .poll(() => heard.find((e) => e.type === 'typing'))
      .toMatchObject({
        conversation_id: id,
        from: 'visitor',
      });
    await stop();
    // Without a token 401; a person typing in another tenant's conversation is a 404.
    expect(
      (await t.app.inject({ method: 'POST', url: '/v1/widget/typing', headers: { origin: SITE } }))
        .statusCode,
    ).toBe(401);
    const other = await buildTenant(t.ctx);
    expect((await inbox(t, 'POST', `/api/inbox/${id}/typing`, other.owner.headers)).statusCode).toBe(404);
    const viewer = await tenant.user('viewer');
    expect((await inbox(t, 'POST', `/api/inbox/${id}/typing`, viewer.headers)).statusCode).toBe(403);
    expect((await inbox(t, 'POST', `/api/inbox/${id}/typing`, {})).statusCode).toBe(401);
    expect((await inbox(t, 'POST', `/api/inbox/${id}/typing`, tenant.owner.headers)).statusCode).toBe(200);

    expect((await inbox(t, 'POST', `/api/inbox/${id}/claim`, tenant.owner.headers)).statusCode).toBe(200);
    const reply = await inbox(t, 'POST', `/api/inbox/${id}/reply`, tenant.owner.headers, {
      text: 'Samstag von 10 bis 16 Uhr',
    });
    // Without a picture the author is the name alone; with one, its address goes along.
    expect(
      (await t.app.inject({ method: 'GET', url: '/v1/widget/conversation', headers: session.headers }))
        .json<{ messages: { author?: object }[] }>()
        .messages.at(-1)!.author,
    ).toEqual({ name: 'Test' });
    const avatar = 'https://cdn.example.com/team/test.png';
    const profile = await t.app.inject({
      method: 'PATCH',
      url: '/api/me',
      headers: tenant.owner.headers,
      payload: { avatar_url: avatar },
    });
    expect(profile.statusCode, profile.body).toBe(200);
    expect(reply.statusCode, reply.body).toBe(201);
    const transcript = await t.app.inject({
      method: 'GET',
      url: '/v1/widget/conversation',
      headers: session.headers,
    });
    const last = transcript.json<{ messages: Record<string, unknown>[] }>().messages.at(-1);
    expect(last).toMatchObject({
      from: 'person',
      text: 'Samstag von 10 bis 16 Uhr',
      author: { name: 'Test', avatar_url: avatar },
    });
    // The bot's replies stay the bot's.
    expect(transcript.json<{ messages: { from: string }[] }>().messages.map((m) => m.from)).toEqual([
      'visitor',
      'bot',
      'person',
    ]);

    // The inbox shows the visitor's context: page, language, device.
    const detail = await inbox(t, 'GET', `/api/inbox/${id}`, tenant.owner.headers);
    expect(detail.json().visitor).toMatchObject({
      verified: false,
      page_url: `${SITE}/kurse`,
      language: 'de-DE',
      earlier_conversations: [],
    });
  });

  it('unread is per person: one colleague reading clears only their own mark', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const bot = await tenant.bot();
    const res = await sendChat(t, tenant, bot.id, { message: ASK_PERSON });
    const id = res.json<{ conversation_id: string }>().conversation_id;
    const agent = await tenant.user('agent');
    const unread = async (headers: object) =>
      (await inbox(t, 'GET', '/api/inbox/unread', headers)).json<{ count: number }>().count;
    expect(await unread(tenant.owner.headers)).toBe(1);
    expect(await unread(agent.headers)).toBe(1);
    expect((await inbox(t, 'POST', `/api/inbox/${id}/read`, agent.headers)).statusCode).toBe(200);
    expect(await unread(agent.headers)).toBe(0);
    expect(await unread(tenant.owner.headers)).toBe(1);
    const list = await inbox(t, 'GET', '/api/inbox', tenant.owner.headers);
    expect(list.json<{ data: { unread: boolean }[] }>().data[0]!.unread).toBe(true);
    const other = await buildTenant(t.ctx);
    expect((await inbox(t, 'POST', `/api/inbox/${id}/read`, other.owner.headers)).statusCode).toBe(404);
    // The conversation-wide mark of before is gone from the schema.
    const columns = await t.db.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'conversations' AND column_name = 'inbox_read_at'`,
    );
    expect(columns).toEqual([]);
  });

  it('saved replies: the team lists them, editors keep them, names are unique, other tenants see none', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const agent = await tenant.user('agent');
    const viewer = await tenant.user('viewer');
    const create = (headers: object, payload: object) =>
      inbox(t, 'POST', '/api/saved-replies', headers, payload);
    const created = await create(tenant.owner.headers, {
      name: 'zeiten',
      content: 'Wir sind Mo–Fr 9–17 Uhr da.',
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json<{ id: string }>().id;
    expect((await create(tenant.owner.headers, { name: 'zeiten', content: 'x' })).json().code).toBe(
      'saved_reply_name_taken',
    );
    expect((await create(tenant.owner.headers, { name: 'Mit Leerzeichen', content: 'x' })).statusCode).toBe(
      400,
    );
    expect((await create(tenant.owner.headers, { name: 'leer', content: '   ' })).statusCode).toBe(400);
    expect((await create(agent.headers, { name: 'agent', content: 'x' })).statusCode).toBe(403);
    expect((await create({}, { name: 'anon', content: 'x' })).statusCode).toBe(401);

    const listed = await inbox(t, 'GET', '/api/saved-replies', agent.headers);
    expect(listed.json<{ data: { name: string }[] }>().data.map((r) => r.name)).toEqual(['zeiten']);
    expect((await inbox(t, 'GET', '/api/saved-replies', viewer.headers)).statusCode).toBe(403);

    const patch = (headers: object, payload: object, target = id) =>
      t.app.inject({
        method: 'PATCH',
        url: `/api/saved-replies/${target}`,
        headers: headers as never,
        payload,
      });
    const edited = await patch(tenant.owner.headers, { content: 'Mo–Sa 9–17 Uhr.' });
    expect(edited.json()).toMatchObject({ name: 'zeiten', content: 'Mo–Sa 9–17 Uhr.' });
    await create(tenant.owner.headers, { name: 'preis', content: '20 €' });
    expect((await patch(tenant.owner.headers, { name: 'preis' })).statusCode).toBe(409);

    const other = await buildTenant(t.ctx);
    expect((await patch(other.owner.headers, { content: 'fremd' })).statusCode).toBe(404);
    expect((await inbox(t, 'GET', '/api/saved-replies', other.owner.headers)).json().data).toEqual([]);
    const remove = (headers: object) =>
      t.app.inject({ method: 'DELETE', url: `/api/saved-replies/${id}`, headers: headers as never });
    expect((await remove(other.owner.headers)).statusCode).toBe(404);
    expect((await remove(agent.headers)).statusCode).toBe(403);
    expect((await remove(tenant.owner.headers)).statusCode).toBe(204);
    expect((await remove(tenant.owner.headers)).statusCode).toBe(404);
  });

  it('a person known by widget, e-mail and the chat API is one contact: exported in one file, erased everywhere', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const { botId, publishableKey } = await widgetBot(t, tenant);
    const token = await identity(t, tenant, botId, {
      visitor_id: 'kunde-7',
      name: 'Anna Weber',
      email: 'Anna@Example.test',
    });
    const session = await startSession(t, publishableKey, { identity_token: token });
    const widgetId = await handedOver(t, session);
    const mail = await seedConversation(t.db, tenant.id, botId, {
      channel: 'email',
      senderId: 'anna@example.test',
      messages: 2,
    });
    const chat = await sendChat(t, tenant, botId, {
      message: 'Hallo vom CRM',
      sender_id: 'anna@example.test',
    });
    expect(chat.statusCode, chat.body).toBe(200);
    const chatId = chat.json<{ conversation_id: string }>().conversation_id;

    const [contact] = await t.db.query<{ id: string; name: string; email: string }>(
      'SELECT id, name, email FROM contacts WHERE tenant_id = $1',
      [tenant.id],
    );
    expect(contact).toMatchObject({ name: 'Anna Weber', email: 'Anna@Example.test' });
    const [linked] = await t.db.query<{ contact_id: string }>(
      'SELECT contact_id FROM conversations WHERE id = $1',
      [widgetId],
    );
    expect(linked!.contact_id).toBe(contact!.id);

    // The inbox shows the verified name and e-mail and the earlier conversations.
    const detail = await inbox(t, 'GET', `/api/inbox/${widgetId}`, tenant.owner.headers);
    expect(detail.json().visitor).toMatchObject({
      verified: true,
      name: 'Anna Weber',
      email: 'Anna@Example.test',
      contact_id: contact!.id,
    });

    const exported = await inbox(t, 'GET', `/api/contacts/${contact!.id}/export`, tenant.owner.headers);
    expect(exported.statusCode, exported.body).toBe(200);
    const ids = exported.json<{ conversations: { id: string }[] }>().conversations.map((c) => c.id);
    expect(ids.sort()).toEqual([widgetId, mail.id, chatId].sort());
    const other = await buildTenant(t.ctx);
    expect(
      (await inbox(t, 'GET', `/api/contacts/${contact!.id}/export`, other.owner.headers)).statusCode,
    ).toBe(404);

    const erased = await inbox(t, 'POST', `/api/contacts/${contact!.id}/erase`, tenant.owner.headers);
    expect(erased.statusCode, erased.body).toBe(200);
    expect(erased.json()).toMatchObject({ conversations: 3 });
    const left = await t.db.query(
      `SELECT 1 FROM conversations WHERE tenant_id = $1
       UNION ALL SELECT 1 FROM messages WHERE tenant_id = $1
       UNION ALL SELECT 1 FROM contacts WHERE tenant_id = $1
       UNION ALL SELECT 1 FROM widget_visitor_context WHERE tenant_id = $1`,
      [tenant.id],
    );
    expect(left).toEqual([]);
    const transcript = await t.app.inject({
      method: 'GET',
      url: '/v1/widget/conversation',
      headers: session.headers,
    });
    expect(transcript.json()).toMatchObject({ conversation_id: null, messages: [] });
  });

  it('outside business hours: the session says so, the visitor leaves an address that gets the person’s reply', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const closed = { time_zone: 'UTC', hours: [] };
    const { botId, publishableKey } = await widgetBot(t, tenant, { business_hours: closed });
    const bad = await t.app.inject({
      method: 'PUT',
      url: `/api/bots/${botId}/widget`,
      headers: tenant.owner.headers,
      payload: { business_hours: { time_zone: 'Nirgendwo/Stadt', hours: [] } },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('field_format');
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/widget/sessions',
      headers: { origin: SITE },
      payload: { publishable_key: publishableKey },
    });
    // Without the service's SMTP the widget is told not to ask, and an address is refused.
    expect(res.json().bot.availability).toEqual({ open: false, next_open_at: null, reply_by_email: false });
    const settings = await t.app.inject({
      method: 'GET',
      url: `/api/bots/${botId}/widget`,
      headers: tenant.owner.headers,
    });
    expect(settings.json().reply_email).toEqual({ enabled: false, from: null });
    const session = await startSession(t, publishableKey);
    const id = await handedOver(t, session);
    const off = await t.app.inject({
      method: 'POST',
      url: '/v1/widget/reply-address',
      headers: session.headers,
      payload: { email: 'gast@example.test' },
    });
    expect(off.statusCode).toBe(409);
    expect(off.json().code).toBe('reply_email_off');
    expect(await t.db.query('SELECT 1 FROM widget_reply_addresses WHERE conversation_id = $1', [id])).toEqual(
      [],
    );

    // With SMTP (a second instance on the same database) the address is taken.
    const mailing = await startApp(t.database, {
      env: { SMTP_URL: 'smtp://mailer:geheim@127.0.0.1:1', MAIL_FROM: 'Kursstudio <team@kurs.test>' },
    });
    onTestFinished(() => stopApp(mailing));
    const withMail = await mailing.app.inject({
      method: 'POST',
      url: '/v1/widget/sessions',
      headers: { origin: SITE },
      payload: { publishable_key: publishableKey },
    });
    expect(withMail.json().bot.availability.reply_by_email).toBe(true);
    const shown = await mailing.app.inject({
      method: 'GET',
      url: `/api/bots/${botId}/widget`,
      headers: tenant.owner.headers,
    });
    expect(shown.json().reply_email).toEqual({ enabled: true, from: 'Kursstudio <team@kurs.test>' });
    expect(shown.body).not.toContain('geheim');

    const address = (payload: object, headers = session.headers) =>
      mailing.app.inject({ method: 'POST', url: '/v1/widget/reply-address', headers, payload });
    const stranger = await startSession(t, publishableKey);
    expect((await address({ email: 'gast@example.test' }, stranger.headers)).statusCode).toBe(404);
    expect((await address({ email: 'kein-mail' })).statusCode).toBe(400);
    expect((await address({ email: 'gast@example.test' }, { origin: SITE })).statusCode).toBe(401);
    expect(
      (await address({ email: 'gast@example.test' }, { ...session.headers, origin: 'https://fremd.example' }))
        .statusCode,
    ).toBe(403);
    const saved = await address({ email: 'gast@example.test' });
    expect(saved.statusCode, saved.body).toBe(200);
    const [contact] = await t.db.query<{ email: string }>(
      'SELECT c.email FROM contacts c JOIN conversations v ON v.contact_id = c.id WHERE v.id = $1',
      [id],
    );
    expect(contact!.email).toBe('gast@example.test');
    // The inbox names the customer by their contact, not by the generated visitor id.
    const listed = await inbox(t, 'GET', '/api/inbox', tenant.owner.headers);
    expect(listed.json<{ data: { id: string; customer_name: string | null }[] }>().data).toContainEqual(
      expect.objectContaining({ id, customer_name: 'gast@example.test' }),
    );

    await inbox(t, 'POST', `/api/inbox/${id}/claim`, tenant.owner.headers);
    const reply = await inbox(t, 'POST', `/api/inbox/${id}/reply`, tenant.owner.headers, {
      text: 'Gern, morgen früh.',
    });
    const messageId = reply.json<{ id: string }>().id;
    const queued = await t.db.query<{ kind: string }>(
      `SELECT kind FROM outbox_messages WHERE tenant_id = $1 AND idempotency_key = $2`,
      [tenant.id, `widget.email:${messageId}`],
    );
    expect(queued).toEqual([{ kind: 'widget.email' }]);
  });

  it('after a person closes the conversation the visitor rates it: stored and reported as satisfaction.rated', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const { publishableKey } = await widgetBot(t, tenant);
    await t.db.query(
      `INSERT INTO webhook_endpoints (tenant_id, url, event_types, secret) VALUES ($1, 'https://example.com/hook', $2, 'whsec_test')`,
      [tenant.id, ['satisfaction.rated']],
    );
    const session = await startSession(t, publishableKey);
    const rate = (payload: object, headers = session.headers) =>
      t.app.inject({ method: 'POST', url: '/v1/widget/rating', headers, payload });
    expect((await rate({ rating: 5 })).statusCode).toBe(404);
    const id = await handedOver(t, session);
    expect((await rate({ rating: 5 })).json().code).toBe('conversation_not_closed');
    await inbox(t, 'POST', `/api/inbox/${id}/claim`, tenant.owner.headers);
    expect((await inbox(t, 'POST', `/api/inbox/${id}/close`, tenant.owner.headers)).statusCode).toBe(200);
    expect((await rate({ rating: 6 })).statusCode).toBe(400);
    expect((await rate({ rating: 4 }, { origin: SITE })).statusCode).toBe(401);
    const rated = await rate({ rating: 4, comment: 'Schnelle Hilfe' });
    expect(rated.statusCode, rated.body).toBe(200);
    expect(rated.json()).toEqual({ conversation_id: id, rating: 4, comment: 'Schnelle Hilfe' });
    const [row] = await t.db.query<{ rating: number; rating_comment: string }>(
      'SELECT rating, rating_comment FROM conversations WHERE id = $1',
      [id],
    );
    expect(row).toEqual({ rating: 4, rating_comment: 'Schnelle Hilfe' });
    const events = await t.db.query<{ type: string }>(
      `SELECT type FROM webhook_events WHERE tenant_id = $1 AND type = 'satisfaction.rated'`,
      [tenant.id],
    );
    expect(events).toHaveLength(1);
  });
});
