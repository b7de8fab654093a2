import { randomUUID } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture, type UserFixture } from '../helpers/factories.js';
import { RecordingModel, useModel } from '../chat/fixtures.js';
import { sendChat } from '../chat/helpers.js';
import { seedConversation } from '../conversations/seed.js';
import { deliveriesOf } from '../webhooks/helpers.js';

interface InboxItem {
  id: string;
  state: string;
  status: string;
  assigned_user_id: string | null;
  handover_reason: string | null;
  handover_question: string | null;
  unread: boolean;
}

/** A conversation waiting for a person, as the bot leaves it when the customer asks for one. */
async function waitingConversation(t: TestApp, tenant: TenantFixture, botId: string): Promise<string> {
  const res = await sendChat(t, tenant, botId, { message: 'Ich möchte mit einem Mitarbeiter sprechen' });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ conversation_id: string }>().conversation_id;
}

describeApp(
  'inbox',
  (get) => {
    let restore: (() => void) | undefined;
    afterEach(() => {
      restore?.();
      restore = undefined;
    });

    const call = (method: 'GET' | 'POST', url: string, user: { headers: object } | null, payload?: unknown) =>
      get().app.inject({
        method,
        url,
        headers: user ? (user.headers as Record<string, string>) : {},
        ...(payload === undefined ? {} : { payload: payload as object }),
      });

    it('a customer asking for a person is handed over, listed with the question, and the bot stays silent', async () => {
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot({ formal_address: true });
      const first = await sendChat(get(), tenant, bot.id, {
        message: 'Ich möchte mit einem Mitarbeiter sprechen',
      });
      expect(first.statusCode).toBe(200);
      expect(first.json<{ reply: string }>().reply).toMatch(/verbinde ich Sie/);
      const id = first.json<{ conversation_id: string }>().conversation_id;

      const list = await call('GET', '/api/inbox', tenant.owner);
      expect(list.statusCode).toBe(200);
      const items = list.json<{ data: InboxItem[] }>().data;
      expect(items.map((c) => c.id)).toEqual([id]);
      expect(items[0]).toMatchObject({
        state: 'waiting',
        status: 'handed_over',
        handover_reason: 'customer_request',
        handover_question: 'Ich möchte mit einem Mitarbeiter sprechen',
        unread: true,
      });

      // The bot never answers while the conversation waits; the customer's message is kept.
      const model = new RecordingModel();
      restore = useModel(get().ctx, model);
      const again = await sendChat(get(), tenant, bot.id, { message: 'Hallo?', conversation_id: id });
      expect(again.statusCode).toBe(409);
      expect(model.requests).toHaveLength(0);
      const detail = await call('GET', `/api/inbox/${id}`, tenant.owner);
      expect(detail.json<{ messages: { role: string; content: string }[] }>().messages.at(-1)).toMatchObject({
        role: 'user',
        content: 'Hallo?',
      });
    });

    it('hands over with reason no_answer when the bot has no answer', async () => {
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      const res = await sendChat(get(), tenant, bot.id, { message: 'Wie wird das Wetter morgen in Zürich?' });
      expect(res.statusCode).toBe(200);
      const id = res.json<{ conversation_id: string }>().conversation_id;
      const detail = await call('GET', `/api/inbox/${id}`, tenant.owner);
      expect(detail.json<InboxItem>()).toMatchObject({
        state: 'waiting',
        handover_reason: 'no_answer',
        handover_question: 'Wie wird das Wetter morgen in Zürich?',
      });
    });

    it('a hand-over is stored with the exchange: escalation.triggered only for a subscribing endpoint', async () => {
      const { db } = get();
      const quiet = await buildTenant(get().ctx);
      const quietBot = await quiet.bot();
      await db.query(
        `INSERT INTO webhook_endpoints (tenant_id, url, event_types, secret)
         VALUES ($1, 'http://127.0.0.1:9/never-contacted', $2, 'whsec_AAAA')`,
        [quiet.id, ['conversation.ended']],
      );
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      await db.query(
        `INSERT INTO webhook_endpoints (tenant_id, url, event_types, secret)
         VALUES ($1, 'http://127.0.0.1:9/never-contacted', $2, 'whsec_AAAA')`,
        [tenant.id, ['escalation.triggered']],
      );
      const question = 'Ich möchte mit einem Mitarbeiter sprechen';
      const quietRes = await sendChat(get(), quiet, quietBot.id, { message: question });
      const res = await sendChat(get(), tenant, bot.id, { message: question });
      expect(res.statusCode).toBe(200);
      const id = res.json<{ conversation_id: string }>().conversation_id;
      const [row] = await db.query<Record<string, unknown>>(
        `SELECT status, escalation_reason, handover_reason, handover_question, escalated_at, handover_at
         FROM conversations WHERE id = $1`,
        [id],
      );
      expect(row).toMatchObject({
        status: 'handed_over',
        escalation_reason: 'customer_request',
        handover_reason: 'customer_request',
        handover_question: question,
      });
      expect(row!.escalated_at).toEqual(row!.handover_at);
      const deliveries = await deliveriesOf(db, tenant.id);
      expect(deliveries.map((d) => [d.type, d.data])).toEqual([
        [
          'escalation.triggered',
          {
            conversation_id: id,
            bot_id: bot.id,
            reason: 'customer_request',
            escalated_at: new Date(row!.escalated_at as string).toISOString(),
          },
        ],
      ]);
      // The tenant without a subscriber: handed over all the same, nothing queued.
      const quietId = quietRes.json<{ conversation_id: string }>().conversation_id;
      const [quietRow] = await db.query<{ status: string }>(
        'SELECT status FROM conversations WHERE id = $1',
        [quietId],
      );
      expect(quietRow!.status).toBe('handed_over');
      expect(await deliveriesOf(db, quiet.id)).toEqual([]);
    });

    it('two staff claiming at once: one gets it, the other is told (409)', async () => {
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      const id = await waitingConversation(get(), tenant, bot.id);
      const [a, b] = await Promise.all([tenant.user('agent'), tenant.user('agent')]);
      const results = await Promise.all([
        call('POST', `/api/inbox/${id}/claim`, a),
        call('POST', `/api/inbox/${id}/claim`, b),
      ]);
      const statuses = results.map((r) => r.statusCode).sort();
      expect(statuses).toEqual([200, 409]);
      const lost = results.find((r) => r.statusCode === 409)!;
      expect(lost.json()).toMatchObject({ error: 'conflict', code: 'conversation_held' });
      const won = results.find((r) => r.statusCode === 200)!;
      const winner = won.json<InboxItem>().assigned_user_id;
      expect([a.id, b.id]).toContain(winner);
      // The loser may not answer either; the winner may.
      const loser = winner === a.id ? b : a;
      const refused = await call('POST', `/api/inbox/${id}/reply`, loser, { text: 'Ich auch' });
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({ code: 'conversation_held' });
    });

    it('a reply is stored as from a person and queues exactly one conversation.message delivery (API channel)', async () => {
      const { db } = get();
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      await db.query(
        `INSERT INTO webhook_endpoints (tenant_id, url, event_types, secret) VALUES ($1, 'https://example.com/hook', $2, 'whsec_test')`,
        [tenant.id, ['conversation.message']],
      );
      const id = await waitingConversation(get(), tenant, bot.id);
      const agent = await tenant.user('agent');
      const res = await call('POST', `/api/inbox/${id}/reply`, agent, { text: 'Guten Tag, hier ist Anna.' });
      expect(res.statusCode, res.body).toBe(201);
      const message = res.json<{ id: string; author_user_id: string }>();
      expect(message.author_user_id).toBe(agent.id);

      const outbox = await db.query<{ kind: string; data: { message_id: string; content: string } }>(
        `SELECT o.kind, e.data FROM outbox_messages o
         JOIN webhook_deliveries d ON d.id = o.id JOIN webhook_events e ON e.id = d.event_id
         WHERE o.tenant_id = $1 AND e.type = 'conversation.message'`,
        [tenant.id],
      );
      expect(outbox).toHaveLength(1);
      expect(outbox[0]!.data).toMatchObject({ message_id: message.id, content: 'Guten Tag, hier ist Anna.' });

      const detail = await call('GET', `/api/inbox/${id}`, tenant.owner);
      expect(detail.json<InboxItem & { messages: object[] }>()).toMatchObject({
        state: 'with_person',
        assigned_user_id: agent.id,
      });
      expect(detail.json<{ messages: object[] }>().messages.at(-1)).toMatchObject({
        id: message.id,
        role: 'assistant',
        from_person: true,
        author_user_id: agent.id,
      });
    });

    it('give back: the bot answers again with the person’s messages in its history', async () => {
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      const id = await waitingConversation(get(), tenant, bot.id);
      expect((await call('POST', `/api/inbox/${id}/claim`, tenant.owner)).statusCode).toBe(200);
      await call('POST', `/api/inbox/${id}/reply`, tenant.owner, { text: 'Der Kurs beginnt um 18 Uhr.' });
      const back = await call('POST', `/api/inbox/${id}/give-back`, tenant.owner);
      expect(back.statusCode).toBe(200);
      expect(back.json<InboxItem>()).toMatchObject({
        state: 'bot',
        status: 'active',
        assigned_user_id: null,
      });

      const model = new RecordingModel();
      restore = useModel(get().ctx, model);
      const res = await sendChat(get(), tenant, bot.id, {
        message: 'Und wie lange dauert er?',
        conversation_id: id,
      });
      expect(res.statusCode).toBe(200);
      const history = JSON.stringify(model.requests[0]!.messages);
      expect(history).toContain('Der Kurs beginnt um 18 Uhr.');
      // No longer in the inbox.
      const list = await call('GET', '/api/inbox', tenant.owner);
      expect(list.json<{ data: InboxItem[] }>().data).toEqual([]);
    });

    it('notes are internal: in the inbox, not in the message listings; close ends the conversation', async () => {
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      const id = await waitingConversation(get(), tenant, bot.id);
      const note = await call('POST', `/api/inbox/${id}/notes`, tenant.owner, {
        text: 'Stammkundin, bitte rasch',
      });
      expect(note.statusCode).toBe(201);
      const detail = await call('GET', `/api/inbox/${id}`, tenant.owner);
      expect(detail.json<{ notes: { content: string }[] }>().notes.map((n) => n.content)).toEqual([
        'Stammkundin, bitte rasch',
      ]);
      const listing = await call('GET', `/api/conversations/${id}`, tenant.owner);
      expect(listing.body).not.toContain('Stammkundin');
      const closed = await call('POST', `/api/inbox/${id}/close`, tenant.owner);
      expect(closed.json<InboxItem>()).toMatchObject({ state: 'closed', status: 'ended' });
      const replyToClosed = await call('POST', `/api/inbox/${id}/reply`, tenant.owner, { text: 'Noch was' });
      expect(replyToClosed.statusCode).toBe(409);
      expect(replyToClosed.json()).toMatchObject({ code: 'conversation_closed' });
    });

    it('take over a bot conversation, assign to a colleague, filters and the unread count', async () => {
      const { db } = get();
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      const other = await tenant.bot();
      const { id } = await seedConversation(db, tenant.id, bot.id, { messages: 2 });
      const waiting = await waitingConversation(get(), tenant, other.id);
      const agent = await tenant.user('agent');

      const took = await call('POST', `/api/inbox/${id}/take-over`, tenant.owner);
      expect(took.json<InboxItem>()).toMatchObject({ state: 'with_person', handover_reason: 'staff' });
      const assigned = await call('POST', `/api/inbox/${id}/assign`, tenant.owner, { user_id: agent.id });
      expect(assigned.statusCode).toBe(200);
      expect(assigned.json<InboxItem>().assigned_user_id).toBe(agent.id);

      const ids = async (user: UserFixture, query: string) =>
        (await call('GET', `/api/inbox${query}`, user)).json<{ data: InboxItem[] }>().data.map((c) => c.id);
      expect(await ids(agent, '?view=mine')).toEqual([id]);
      expect(await ids(agent, '?view=unassigned')).toEqual([waiting]);
      expect(await ids(agent, `?bot_id=${other.id}`)).toEqual([waiting]);
      expect((await ids(agent, '')).sort()).toEqual([id, waiting].sort());

      const unread = await call('GET', '/api/inbox/unread', agent);
      expect(unread.json()).toEqual({ count: 2 });
      expect((await call('POST', `/api/inbox/${waiting}/read`, agent)).statusCode).toBe(200);
      expect((await call('GET', '/api/inbox/unread', agent)).json()).toEqual({ count: 1 });

      // An unknown colleague or a viewer is no assignee.
      const viewer = await tenant.user('viewer');
      for (const userId of [randomUUID(), viewer.id]) {
        const bad = await call('POST', `/api/inbox/${id}/assign`, tenant.owner, { user_id: userId });
        expect(bad.statusCode).toBe(400);
        expect(bad.json()).toMatchObject({ code: 'reference_unknown', details: { field: 'user_id' } });
      }
    });

    it('refuses bad input with 400 and changes nothing', async () => {
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      const id = await waitingConversation(get(), tenant, bot.id);
      for (const payload of [
        {},
        { text: '' },
        { text: '   ' },
        { text: 'x'.repeat(4001) },
        { text: 'a', extra: 1 },
      ]) {
        const res = await call('POST', `/api/inbox/${id}/reply`, tenant.owner, payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      }
      expect((await call('GET', '/api/inbox?view=nobody', tenant.owner)).statusCode).toBe(400);
      const detail = await call('GET', `/api/inbox/${id}`, tenant.owner);
      expect(detail.json<InboxItem>().state).toBe('waiting');
      expect(detail.json<{ messages: object[] }>().messages).toHaveLength(2);
    });

    it('401 without a session, 403 for a viewer acting and for an agent in bot or team settings', async () => {
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      const id = await waitingConversation(get(), tenant, bot.id);
      expect((await call('GET', '/api/inbox', null)).statusCode).toBe(401);
      expect((await call('POST', `/api/inbox/${id}/claim`, null)).statusCode).toBe(401);
      expect((await call('GET', '/api/inbox/stream', null)).statusCode).toBe(401);

      const viewer = await tenant.user('viewer');
      expect((await call('GET', '/api/inbox', viewer)).statusCode).toBe(200);
      for (const path of ['claim', 'take-over', 'give-back', 'close']) {
        const res = await call('POST', `/api/inbox/${id}/${path}`, viewer);
        expect(res.statusCode, path).toBe(403);
      }
      expect((await call('POST', `/api/inbox/${id}/reply`, viewer, { text: 'x' })).statusCode).toBe(403);
      expect((await call('POST', `/api/inbox/${id}/notes`, viewer, { text: 'x' })).statusCode).toBe(403);

      const agent = await tenant.user('agent');
      expect((await call('GET', '/api/inbox', agent)).statusCode).toBe(200);
      expect((await call('GET', '/api/conversations', agent)).statusCode).toBe(200);
      expect((await call('GET', '/api/bots', agent)).statusCode).toBe(403);
      expect((await call('GET', `/api/bots/${bot.id}`, agent)).statusCode).toBe(403);
      expect((await call('GET', '/api/users', agent)).statusCode).toBe(403);
      expect((await call('GET', '/api/webhooks', agent)).statusCode).toBe(403);
      expect((await call('POST', `/api/inbox/${id}/claim`, agent)).statusCode).toBe(200);
    });

    it('test chat conversations are kept apart, not charged to the quota, and ended after inactivity', async () => {
      const { db, ctx } = get();
      const tenant = await buildTenant(ctx);
      const bot = await tenant.bot();
      const customer = await sendChat(get(), tenant, bot.id, { message: 'Hallo' });
      const customerId = customer.json<{ conversation_id: string }>().conversation_id;
      const test = await call('POST', `/api/bots/${bot.id}/test-chat`, tenant.owner, { message: 'Hallo' });
      expect(test.statusCode, test.body).toBe(200);
      const testId = test.json<{ conversation_id: string }>().conversation_id;

      const ids = async (query: string) =>
        (await call('GET', `/api/conversations${query}`, tenant.owner))
          .json<{ data: { id: string; is_test: boolean }[] }>()
          .data.map((c) => `${c.id}:${c.is_test}`);
      expect(await ids('')).toEqual([`${customerId}:false`]);
      expect(await ids('?kind=test')).toEqual([`${testId}:true`]);
      expect((await ids('?kind=all')).sort()).toEqual([`${customerId}:false`, `${testId}:true`].sort());
      expect((await call('GET', '/api/conversations?kind=other', tenant.owner)).statusCode).toBe(400);

      const [usage] = await db.query<{ messages_used: number }>(
        'SELECT messages_used FROM usage_counters WHERE tenant_id = $1',
        [tenant.id],
      );
      expect(usage!.messages_used).toBe(1);

      const { sweepInactiveConversations } = await import('../../src/modules/conversations/lifecycle.js');
      await sweepInactiveConversations(ctx, new Date(Date.now() + 400 * 24 * 3600_000));
      const [row] = await db.query<{ status: string }>('SELECT status FROM conversations WHERE id = $1', [
        testId,
      ]);
      expect(row!.status).toBe('ended');
    });

    it("another tenant's conversation is a 404 for every operation", async () => {
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      const id = await waitingConversation(get(), tenant, bot.id);
      const stranger = await buildTenant(get().ctx);
      const reads = [`/api/inbox/${id}`];
      for (const url of reads) expect((await call('GET', url, stranger.owner)).statusCode).toBe(404);
      for (const path of ['claim', 'take-over', 'give-back', 'close', 'read']) {
        const res = await call('POST', `/api/inbox/${id}/${path}`, stranger.owner);
        expect(res.statusCode, path).toBe(404);
        expect(res.json()).toMatchObject({ details: { resource: 'conversation' } });
      }
      expect((await call('POST', `/api/inbox/${id}/reply`, stranger.owner, { text: 'x' })).statusCode).toBe(
        404,
      );
      expect((await call('POST', `/api/inbox/${id}/notes`, stranger.owner, { text: 'x' })).statusCode).toBe(
        404,
      );
      expect(
        (await call('POST', `/api/inbox/${id}/assign`, stranger.owner, { user_id: stranger.owner.id }))
          .statusCode,
      ).toBe(404);
      expect((await call('GET', '/api/inbox', stranger.owner)).json()).toEqual({
        data: [],
        next_cursor: null,
      });
      // Nothing changed for the tenant.
      const detail = await call('GET', `/api/inbox/${id}`, tenant.owner);
      expect(detail.json<InboxItem>().state).toBe('waiting');
      expect((await call('GET', `/api/inbox/not-a-uuid`, tenant.owner)).statusCode).toBe(404);
    });
  },
  { env: { HANDOVER_ON_NO_ANSWER: 'true' } },
);
