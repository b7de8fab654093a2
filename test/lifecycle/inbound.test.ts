import { beforeAll, expect, it } from 'vitest';
import { sweepInactiveConversations } from '../../src/modules/conversations/lifecycle.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { deliveriesOf, insertConversation } from '../webhooks/helpers.js';

const ALL_TYPES = ['conversation.ended', 'lead.generated', 'escalation.triggered', 'satisfaction.rated'];

describeApp('conversation lifecycle: inbound webhooks', (get) => {
  let tenant: TenantFixture;
  let botId: string;

  /** A tenant subscribed to every lifecycle event, so emitted events become deliveries. */
  async function subscribedTenant(): Promise<{ tenant: TenantFixture; botId: string }> {
    const t = await buildTenant(get().ctx);
    await get().db.query(
      `INSERT INTO webhook_endpoints (tenant_id, url, event_types, secret) VALUES ($1, 'http://127.0.0.1:9/never-contacted', $2, 'whsec_AAAA')`,
      [t.id, ALL_TYPES],
    );
    return { tenant: t, botId: (await t.bot()).id };
  }

  beforeAll(async () => {
    ({ tenant, botId } = await subscribedTenant());
  });

  const post = (url: string, payload: object, headers: Record<string, string> = tenant.keyHeaders) =>
    get().app.inject({ method: 'POST', url, headers, payload });

  const conversation = async (id: string) =>
    (await get().db.query<Record<string, unknown>>('SELECT * FROM conversations WHERE id = $1', [id]))[0]!;

  const ENDPOINTS: Array<[string, Record<string, unknown>]> = [
    ['/webhooks/conversation-ended', {}],
    ['/webhooks/escalation-triggered', {}],
    ['/webhooks/satisfaction-rating', { rating: 4 }],
    ['/webhooks/lead-generated', { email: 'x@example.test' }],
  ];

  it.each(ENDPOINTS)(
    '%s needs a valid tenant API key (401) and changes nothing without one',
    async (url, extra) => {
      const id = await insertConversation(get().db, tenant.id, botId);
      const payload = { conversation_id: id, ...extra };
      const missing = await post(url, payload, {});
      expect(missing.statusCode).toBe(401);
      expect(missing.json()).toMatchObject({ error: 'unauthorized', message: expect.any(String) });
      const wrong = await post(url, payload, { authorization: 'Bearer svc_not-a-real-key-at-all' });
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json().error).toBe('unauthorized');
      expect(await conversation(id)).toMatchObject({ status: 'active', rating: null, contact_id: null });
    },
  );

  it.each(ENDPOINTS)(
    "%s treats another tenant's conversation and malformed ids as missing (404)",
    async (url, extra) => {
      const other = await buildTenant(get().ctx);
      const foreign = await insertConversation(get().db, other.id, (await other.bot()).id);
      const res = await post(url, { conversation_id: foreign, ...extra });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: 'not_found' });
      expect(await conversation(foreign)).toMatchObject({ status: 'active', rating: null, contact_id: null });
      expect((await post(url, { conversation_id: 'nope', ...extra })).statusCode).toBe(404);
      expect((await post(url, { ...extra })).statusCode).toBe(400);
      expect((await post(url, { conversation_id: foreign, ...extra, surprise: 1 })).statusCode).toBe(400);
    },
  );

  it('ends a conversation once, accepts x-api-key, and emits conversation.ended once', async () => {
    const { tenant: t, botId: b } = await subscribedTenant();
    const id = await insertConversation(get().db, t.id, b);
    const first = await post(
      '/webhooks/conversation-ended',
      { conversation_id: id, reason: 'resolved' },
      {
        'x-api-key': t.apiKey,
      },
    );
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({
      changed: true,
      conversation: { id, status: 'ended', end_reason: 'resolved', ended_at: expect.any(String) },
    });
    const again = await post('/webhooks/conversation-ended', { conversation_id: id }, t.keyHeaders);
    expect(again.json()).toMatchObject({
      changed: false,
      conversation: { status: 'ended', end_reason: 'resolved' },
    });
    const events = await deliveriesOf(get().db, t.id);
    expect(events.map((e) => e.type)).toEqual(['conversation.ended']);
    expect(events[0]!.data).toMatchObject({
      conversation_id: id,
      bot_id: b,
      trigger: 'api',
      reason: 'resolved',
    });
  });

  it('hands a conversation over; ending it later is allowed, escalating an ended one is refused', async () => {
    const { tenant: t, botId: b } = await subscribedTenant();
    const id = await insertConversation(get().db, t.id, b);
    const res = await post(
      '/webhooks/escalation-triggered',
      { conversation_id: id, reason: 'wants a human' },
      t.keyHeaders,
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().conversation).toMatchObject({
      status: 'handed_over',
      escalation_reason: 'wants a human',
    });
    const twice = await post('/webhooks/escalation-triggered', { conversation_id: id }, t.keyHeaders);
    expect(twice.json().changed).toBe(false);
    await post('/webhooks/conversation-ended', { conversation_id: id }, t.keyHeaders);
    const refused = await post('/webhooks/escalation-triggered', { conversation_id: id }, t.keyHeaders);
    expect(refused.statusCode).toBe(409);
    expect((await conversation(id)).status).toBe('ended');
    expect((await deliveriesOf(get().db, t.id)).map((e) => e.type)).toEqual([
      'escalation.triggered',
      'conversation.ended',
    ]);
  });

  it('stores a 1–5 rating with comment; a later rating replaces it; out-of-range ratings are refused', async () => {
    const { tenant: t, botId: b } = await subscribedTenant();
    const id = await insertConversation(get().db, t.id, b);
    for (const rating of [0, 6, 2.5, '5']) {
      const bad = await post('/webhooks/satisfaction-rating', { conversation_id: id, rating }, t.keyHeaders);
      expect(bad.statusCode, String(rating)).toBe(400);
    }
    const res = await post(
      '/webhooks/satisfaction-rating',
      { conversation_id: id, rating: 2, comment: 'slow' },
      t.keyHeaders,
    );
    expect(res.json().conversation).toMatchObject({
      rating: 2,
      rating_comment: 'slow',
      rated_at: expect.any(String),
    });
    await post('/webhooks/satisfaction-rating', { conversation_id: id, rating: 5 }, t.keyHeaders);
    expect(await conversation(id)).toMatchObject({ rating: 5, rating_comment: null });
    const events = await deliveriesOf(get().db, t.id);
    expect(events.map((e) => [e.type, e.data.rating])).toEqual([
      ['satisfaction.rated', 2],
      ['satisfaction.rated', 5],
    ]);
  });

  it('creates a contact for a lead, updates it on the next lead and links the conversation', async () => {
    const { tenant: t, botId: b } = await subscribedTenant();
    const id = await insertConversation(get().db, t.id, b, { senderId: 'wa:+4915112345' });
    const empty = await post('/webhooks/lead-generated', { conversation_id: id }, t.keyHeaders);
    expect(empty.statusCode).toBe(400);
    const badEmail = await post(
      '/webhooks/lead-generated',
      { conversation_id: id, email: 'nope' },
      t.keyHeaders,
    );
    expect(badEmail.statusCode).toBe(400);

    const first = await post(
      '/webhooks/lead-generated',
      { conversation_id: id, name: 'Lea Lang', email: 'lea@example.test', metadata: { source: 'ad' } },
      t.keyHeaders,
    );
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({
      created: true,
      contact: { name: 'Lea Lang', email: 'lea@example.test', phone: null, metadata: { source: 'ad' } },
    });
    const contactId = first.json().contact.id;
    expect((await conversation(id)).contact_id).toBe(contactId);

    const second = await post(
      '/webhooks/lead-generated',
      { conversation_id: id, phone: '+49 151 12345', metadata: { budget: 'high' } },
      t.keyHeaders,
    );
    expect(second.json()).toMatchObject({
      created: false,
      contact: {
        id: contactId,
        name: 'Lea Lang',
        phone: '+49 151 12345',
        metadata: { source: 'ad', budget: 'high' },
      },
    });
    // Another conversation without a sender but with the same address finds the same contact.
    const other = await insertConversation(get().db, t.id, b);
    const third = await post(
      '/webhooks/lead-generated',
      { conversation_id: other, email: 'LEA@example.test' },
      t.keyHeaders,
    );
    expect(third.json()).toMatchObject({ created: false, contact: { id: contactId } });
    const contacts = await get().db.query<{ sender_id: string }>(
      'SELECT sender_id FROM contacts WHERE tenant_id = $1',
      [t.id],
    );
    expect(contacts).toEqual([{ sender_id: 'wa:+4915112345' }]);
    const events = await deliveriesOf(get().db, t.id);
    expect(events.map((e) => [e.type, e.data.created])).toEqual([
      ['lead.generated', true],
      ['lead.generated', false],
      ['lead.generated', false],
    ]);
  });

  it('creates one contact for concurrent leads with the same address', async () => {
    const { tenant: t, botId: b } = await subscribedTenant();
    const ids = await Promise.all(Array.from({ length: 5 }, () => insertConversation(get().db, t.id, b)));
    const results = await Promise.all(
      ids.map((id) =>
        post('/webhooks/lead-generated', { conversation_id: id, email: 'same@example.test' }, t.keyHeaders),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(results.filter((r) => r.json().created)).toHaveLength(1);
    const contacts = await get().db.query('SELECT id FROM contacts WHERE tenant_id = $1', [t.id]);
    expect(contacts).toHaveLength(1);
  });

  it('hand-over stops bot replies until the conversation is reopened in the dashboard', async () => {
    const { tenant: t, botId: b } = await subscribedTenant();
    const chat = (payload: object) =>
      get().app.inject({ method: 'POST', url: `/api/bot-chat/${b}/chat`, headers: t.keyHeaders, payload });
    const opened = await chat({ message: 'Hallo, ich habe eine Frage' });
    expect(opened.statusCode).toBe(200);
    const id = opened.json().conversation_id as string;
    await post(
      '/webhooks/escalation-triggered',
      { conversation_id: id, reason: 'human requested' },
      t.keyHeaders,
    );

    const silenced = await chat({ message: 'Noch da?', conversation_id: id });
    expect(silenced.statusCode).toBe(409);
    expect(silenced.json().error).toBe('Conversation an Mitarbeiter übergeben');
    // The bot does not answer; the customer's message is kept for the people in the inbox.
    const messages = await get().db.query<{ role: string; content: string }>(
      'SELECT role, content FROM messages WHERE conversation_id = $1 ORDER BY seq',
      [id],
    );
    expect(messages).toHaveLength(3);
    expect(messages[2]).toEqual({ role: 'user', content: 'Noch da?' });

    const reopen = (headers: Record<string, string>, target = id) =>
      get().app.inject({ method: 'POST', url: `/api/conversations/${target}/reopen`, headers });
    expect((await reopen({})).statusCode).toBe(401);
    expect((await reopen((await t.user('viewer')).headers)).statusCode).toBe(403);
    const stranger = await buildTenant(get().ctx);
    expect((await reopen(stranger.owner.headers)).statusCode).toBe(404);
    expect((await reopen(t.owner.headers, 'not-a-uuid')).statusCode).toBe(404);
    expect((await conversation(id)).status).toBe('handed_over');

    const reopened = await reopen((await t.user('editor')).headers);
    expect(reopened.statusCode).toBe(200);
    expect(reopened.json()).toMatchObject({ changed: true, conversation: { status: 'active' } });
    const answered = await chat({ message: 'Noch da?', conversation_id: id });
    expect(answered.statusCode).toBe(200);
    expect(answered.json().conversation_id).toBe(id);
  });

  it('ends quiet conversations after the inactivity period and emits conversation.ended', async () => {
    const { tenant: t, botId: b } = await subscribedTenant();
    const old = new Date(Date.now() - 25 * 3600_000);
    const quiet = await insertConversation(get().db, t.id, b, { lastMessageAt: old, createdAt: old });
    const recent = await insertConversation(get().db, t.id, b, { lastMessageAt: new Date() });
    const handedOver = await insertConversation(get().db, t.id, b, {
      lastMessageAt: old,
      createdAt: old,
      status: 'handed_over',
    });
    const reopened = await insertConversation(get().db, t.id, b, { lastMessageAt: old, createdAt: old });
    await get().db.query('UPDATE conversations SET reopened_at = now() WHERE id = $1', [reopened]);

    const summary = await sweepInactiveConversations(get().ctx);
    expect(summary.ended).toBeGreaterThanOrEqual(1);
    expect(await conversation(quiet)).toMatchObject({ status: 'ended', end_reason: 'inactivity' });
    expect((await conversation(recent)).status).toBe('active');
    expect((await conversation(handedOver)).status).toBe('handed_over');
    expect((await conversation(reopened)).status).toBe('active');
    const events = await deliveriesOf(get().db, t.id);
    expect(events.map((e) => [e.type, e.data.conversation_id, e.data.trigger])).toEqual([
      ['conversation.ended', quiet, 'inactivity'],
    ]);
  });
});
