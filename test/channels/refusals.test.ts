import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fanoutOf, tenantTopic } from '../../src/coordination/fanout.js';
import { GUARD_REASONS, guardReasonText } from '../../src/modules/chat/pipeline/guards.js';
import { converse } from '../../src/modules/chat/pipeline/engine.js';
import type { InboundMessage } from '../../src/modules/chat/pipeline/types.js';
import { setOptOut } from '../../src/modules/messaging/repository.js';
import { EngineRefusal } from '../../src/shared/refusal.js';
import type { TestApp } from '../helpers/app.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { seedConversation, type SeedConversation } from '../conversations/seed.js';
import { buildContact } from '../events/fixtures.js';
import { startFakeProviders, type FakeProviders } from '../messaging/fake-providers.js';
import { ACCESS_TOKEN, WHATSAPP_CONNECTION, addConnection } from '../messaging/setup.js';
import { send, startSession, widgetBot } from '../widget/helpers.js';

interface StoredRefusal {
  conversation_id: string | null;
  channel: string;
  sender_id: string | null;
  guard: string;
  code: string;
  reason: string;
  message_excerpt: string;
}

interface ShownRefusal {
  channel: string;
  guard: string;
  code: string;
  reason: string;
  text: string;
  message_excerpt: string;
  created_at: string;
}

describe('guard refusals: shown one way', () => {
  it.each(['de', 'en'] as const)('the dashboard’s words are the engine’s (%s)', (language) => {
    const texts = JSON.parse(
      readFileSync(resolve(import.meta.dirname, `../../web/src/i18n/${language}.json`), 'utf8'),
    ) as { inbox: { refusal: { line: string; reasons: Record<string, string> } } };
    const { line, reasons } = texts.inbox.refusal;
    expect(Object.keys(reasons).sort()).toEqual(Object.keys(GUARD_REASONS).sort());
    for (const reason of Object.keys(GUARD_REASONS)) {
      const shown = line.replace('{{reason}}', reasons[reason]!);
      expect(shown.toLowerCase()).toBe(guardReasonText(reason, language)!.toLowerCase());
    }
  });
});

let fake: FakeProviders;
beforeAll(async () => {
  fake = await startFakeProviders({ meta: ACCESS_TOKEN, twilio: { sid: '', token: '' } });
});
afterAll(() => fake?.close());

const refusalsOf = (t: TestApp, tenantId: string) =>
  t.db.query<StoredRefusal>(
    `SELECT conversation_id, channel, sender_id, guard, code, reason, message_excerpt
     FROM conversation_refusals WHERE tenant_id = $1 ORDER BY created_at`,
    [tenantId],
  );

const timeline = async (t: TestApp, tenant: TenantFixture, conversationId: string) => {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/inbox/${conversationId}`,
    headers: tenant.owner.headers,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ refusals: ShownRefusal[] }>().refusals;
};

/** One turn through the engine, as the channel's adapter sends it; returns the refusal. */
async function refusedTurn(t: TestApp, inbound: InboundMessage): Promise<EngineRefusal> {
  const error = await converse(t.ctx, inbound, {
    delivery: { enqueue: () => Promise.reject(new Error('a refused turn delivers nothing')) },
  }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(EngineRefusal);
  return error as EngineRefusal;
}

async function conversationOn(
  t: TestApp,
  tenant: TenantFixture,
  botId: string,
  channel: string,
  sender: string,
) {
  const { id } = await seedConversation(t.db, tenant.id, botId, {
    channel: channel as SeedConversation['channel'],
    senderId: sender,
    messages: 2,
  });
  return id;
}

/** A customer's WhatsApp turn on a connection, as the messaging adapter hands it to the engine. */
function whatsappTurn(
  at: { tenantId: string; botId: string; connectionId: string },
  from: string,
  conversationId: string | null,
  { message = 'Hallo', idempotencyKey = null as string | null } = {},
): InboundMessage {
  return {
    tenantId: at.tenantId,
    botId: at.botId,
    input: { message, senderId: from, channel: 'whatsapp', conversationId, metadata: {} },
    idempotencyKey,
    facts: { messaging: { connectionId: at.connectionId, from } },
  };
}

/** A new tenant's bot on WhatsApp, a customer who opted out, and a conversation of theirs. */
async function optedOutCustomer(t: TestApp, from: string) {
  t.ctx.config.messaging.graphBaseUrl = fake.graphBase;
  const tenant = await buildTenant(t.ctx);
  const bot = await tenant.bot();
  const { id: connectionId } = await addConnection(t.app, tenant, bot.id, WHATSAPP_CONNECTION);
  await setOptOut(t.db, connectionId, from, true);
  const conversationId = await conversationOn(t, tenant, bot.id, 'whatsapp', from);
  return { tenant, at: { tenantId: tenant.id, botId: bot.id, connectionId }, conversationId };
}

describeApp('guard refusals: stored once by the engine, shown in the inbox timeline', (get) => {
  it('widget: the exhausted daily budget is stored once (also for the retried message) and listed', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const { publishableKey } = await widgetBot(t, tenant, { daily_message_budget: 1 });
    const session = await startSession(t, publishableKey);
    const first = await send(t, session, { text: 'Wann habt ihr offen?' });
    expect(first.statusCode, first.body).toBe(200);
    const conversationId = first.json<{ conversation_id: string }>().conversation_id;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const over = await send(t, session, { text: 'Und am Sonntag?' }, { 'idempotency-key': 'sonntag-1' });
      expect(over.statusCode).toBe(429);
      expect(over.json()).toMatchObject({ code: 'widget_budget_exhausted' });
    }
    expect(await refusalsOf(t, tenant.id)).toEqual([
      {
        conversation_id: conversationId,
        channel: 'widget',
        sender_id: session.visitor_id,
        guard: 'widget_budget',
        code: 'budget_exhausted',
        reason: 'widget_budget_exhausted',
        message_excerpt: 'Und am Sonntag?',
      },
    ]);
    const [shown] = await timeline(t, tenant, conversationId);
    expect(shown).toMatchObject({
      channel: 'widget',
      guard: 'widget_budget',
      code: 'budget_exhausted',
      reason: 'widget_budget_exhausted',
      text: 'nicht beantwortet, weil das Tageslimit an Nachrichten des Chats erreicht ist',
      message_excerpt: 'Und am Sonntag?',
    });
    expect(Date.parse(shown!.created_at)).not.toBeNaN();
  });

  it('widget: a visitor’s refusals are in the visitor’s export and go with the visitor’s deletion, also without a conversation', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const { publishableKey, botId } = await widgetBot(t, tenant, { daily_message_budget: 1 });
    const first = await startSession(t, publishableKey);
    expect((await send(t, first, { text: 'Wann habt ihr offen?' })).statusCode).toBe(200);
    expect((await send(t, first, { text: 'Und am Sonntag?' })).statusCode).toBe(429);
    // Another visitor's first message is refused before any conversation exists.
    const second = await startSession(t, publishableKey);
    expect((await send(t, second, { text: 'Habt ihr noch Plätze?' })).statusCode).toBe(429);
    const visitor = (id: string) => `/api/bots/${botId}/widget/visitors/${id}`;
    const exportOf = (id: string) =>
      t.app.inject({ url: `${visitor(id)}/export`, headers: tenant.owner.headers });
    const excerpts = (res: Awaited<ReturnType<typeof exportOf>>) =>
      res.json<{ refusals: { message_excerpt: string }[] }>().refusals.map((r) => r.message_excerpt);
    const firstExport = await exportOf(first.visitor_id);
    expect(firstExport.statusCode, firstExport.body).toBe(200);
    expect(excerpts(firstExport)).toEqual(['Und am Sonntag?']);
    const secondExport = await exportOf(second.visitor_id);
    expect(secondExport.statusCode, secondExport.body).toBe(200);
    expect(secondExport.json().conversations).toEqual([]);
    expect(excerpts(secondExport)).toEqual(['Habt ihr noch Plätze?']);

    // The visitor deletes their own data: the refusal without a conversation goes too.
    const own = await t.app.inject({
      method: 'DELETE',
      url: '/v1/widget/conversation',
      headers: second.headers,
    });
    expect(own.statusCode).toBe(204);
    expect((await exportOf(second.visitor_id)).statusCode).toBe(404);
    // The dashboard deletes the first visitor: nothing of theirs is left.
    const removed = await t.app.inject({
      method: 'DELETE',
      url: visitor(first.visitor_id),
      headers: tenant.owner.headers,
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(await refusalsOf(t, tenant.id)).toEqual([]);
    expect((await exportOf(first.visitor_id)).statusCode).toBe(404);
  });

  it('e-mail: the loop guard’s refusal is stored once per turn and listed', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const bot = await tenant.bot();
    const sender = 'schleife@kunde.example';
    const conversationId = await conversationOn(t, tenant, bot.id, 'email', sender);
    const cap = t.ctx.config.email.replyCapHour;
    t.ctx.config.email.replyCapHour = 0;
    try {
      const turn: InboundMessage = {
        tenantId: tenant.id,
        botId: bot.id,
        input: {
          message: 'Noch eine Frage',
          senderId: sender,
          channel: 'email',
          conversationId,
          metadata: {},
        },
        idempotencyKey: `email:${crypto.randomUUID()}`,
        facts: {
          email: {
            mailboxId: crypto.randomUUID(),
            inboundId: crypto.randomUUID(),
            sender,
            strippedText: 'x',
          },
        },
      };
      expect(await refusedTurn(t, turn)).toMatchObject({ reason: 'loop_guarded' });
      expect(await refusedTurn(t, turn)).toMatchObject({ reason: 'loop_guarded' });
    } finally {
      t.ctx.config.email.replyCapHour = cap;
    }
    expect(await refusalsOf(t, tenant.id)).toEqual([
      expect.objectContaining({ conversation_id: conversationId, guard: 'email_loop', reason: 'hourly_cap' }),
    ]);
    expect(await timeline(t, tenant, conversationId)).toEqual([
      expect.objectContaining({
        channel: 'email',
        code: 'loop_guarded',
        text: 'nicht beantwortet, weil der Bot diesem Absender in der letzten Stunde schon zu oft geantwortet hat',
        message_excerpt: 'Noch eine Frage',
      }),
    ]);
  });

  it('WhatsApp: an opted-out number’s message is stored once per turn and listed; the excerpt is cut', async () => {
    const t = get();
    const from = '+4917033333333';
    const { tenant, at, conversationId } = await optedOutCustomer(t, from);
    const turn = whatsappTurn(at, from, conversationId, {
      message: 'ä'.repeat(600),
      idempotencyKey: `messaging:${crypto.randomUUID()}`,
    });
    expect(await refusedTurn(t, turn)).toMatchObject({ reason: 'opted_out' });
    expect(await refusedTurn(t, turn)).toMatchObject({ reason: 'opted_out' });
    // Another turn of the same customer is another refusal.
    await refusedTurn(t, { ...turn, idempotencyKey: `messaging:${crypto.randomUUID()}` });
    const stored = await refusalsOf(t, tenant.id);
    expect(stored).toHaveLength(2);
    expect(stored[0]).toMatchObject({ guard: 'messaging_opt_out', code: 'opted_out', sender_id: from });
    expect(stored[0]!.message_excerpt).toBe('ä'.repeat(500));
    const shown = await timeline(t, tenant, conversationId);
    expect(shown.map((r) => r.text)).toEqual([
      'nicht beantwortet, weil der Kunde den Nachrichten widersprochen hat',
      'nicht beantwortet, weil der Kunde den Nachrichten widersprochen hat',
    ]);
  });

  it('a new refusal in a conversation is announced to the tenant’s open inboxes, once per turn', async () => {
    const t = get();
    const from = '+4917044444444';
    const { tenant, at, conversationId } = await optedOutCustomer(t, from);
    const heard: unknown[] = [];
    const stranger = await buildTenant(t.ctx);
    const overheard: unknown[] = [];
    const fanout = fanoutOf(t.ctx.coordination);
    const stop = await fanout.subscribe(tenantTopic(tenant.id), (event) => heard.push(event));
    const stopOther = await fanout.subscribe(tenantTopic(stranger.id), (event) => overheard.push(event));
    try {
      const turn = (key: string, conversation: string | null) =>
        whatsappTurn(at, from, conversation, { message: 'Hallo?', idempotencyKey: key });
      await refusedTurn(t, turn('messaging:live-1', conversationId));
      await refusedTurn(t, turn('messaging:live-1', conversationId)); // the same turn again: stored once
      await refusedTurn(t, turn('messaging:live-2', null)); // no conversation: no inbox to tell
      await vi.waitUntil(() => heard.length >= 1, { timeout: 5000, interval: 10 });
      await refusedTurn(t, turn('messaging:live-3', conversationId));
      await vi.waitUntil(() => heard.length >= 2, { timeout: 5000, interval: 10 });
      expect(heard).toEqual([
        { type: 'refusal', conversation_id: conversationId },
        { type: 'refusal', conversation_id: conversationId },
      ]);
      expect(overheard).toEqual([]);
    } finally {
      await stop();
      await stopOther();
    }
  });

  it('erasing the person deletes their refusals, also those without a conversation; others stay', async () => {
    const t = get();
    t.ctx.config.messaging.graphBaseUrl = fake.graphBase;
    const tenant = await buildTenant(t.ctx);
    const bot = await tenant.bot();
    const { id: connectionId } = await addConnection(t.app, tenant, bot.id, WHATSAPP_CONNECTION);
    const person = await buildContact(t.ctx, tenant.id, { name: 'Erika', sender_id: '+4917055555555' });
    const hers = await conversationOn(t, tenant, bot.id, 'whatsapp', '+4917055555555');
    for (const from of ['+4917055555555', '+4917066666666']) {
      await setOptOut(t.db, connectionId, from, true);
      for (const conversationId of [from === '+4917055555555' ? hers : null, null])
        await refusedTurn(
          t,
          whatsappTurn({ tenantId: tenant.id, botId: bot.id, connectionId }, from, conversationId),
        );
    }
    expect(await refusalsOf(t, tenant.id)).toHaveLength(4);
    const erased = await t.app.inject({
      method: 'POST',
      url: `/api/contacts/${person.id}/erase`,
      headers: tenant.owner.headers,
    });
    expect(erased.statusCode, erased.body).toBe(200);
    expect((await refusalsOf(t, tenant.id)).map((r) => r.sender_id)).toEqual([
      '+4917066666666',
      '+4917066666666',
    ]);
  });

  it('a turn naming another tenant’s conversation is stored without it; the timeline is 404 for others, 401 without a session', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const stranger = await buildTenant(t.ctx);
    const bot = await tenant.bot();
    const strangerBot = await stranger.bot();
    const theirs = await conversationOn(t, stranger, strangerBot.id, 'whatsapp', '+4917044444444');
    const ours = await conversationOn(t, tenant, bot.id, 'whatsapp', '+4917044444444');
    const { id: connectionId } = await addConnection(t.app, tenant, bot.id, WHATSAPP_CONNECTION);
    await setOptOut(t.db, connectionId, '+4917044444444', true);
    const turn = (conversationId: string) =>
      whatsappTurn({ tenantId: tenant.id, botId: bot.id, connectionId }, '+4917044444444', conversationId);
    await refusedTurn(t, turn(theirs));
    await refusedTurn(t, turn(ours));
    expect((await refusalsOf(t, tenant.id)).map((r) => r.conversation_id)).toEqual([null, ours]);
    expect(await refusalsOf(t, stranger.id)).toEqual([]);
    expect(await timeline(t, stranger, theirs)).toEqual([]);
    const other = await t.app.inject({
      method: 'GET',
      url: `/api/inbox/${ours}`,
      headers: stranger.owner.headers,
    });
    expect(other.statusCode).toBe(404);
    expect(other.body).not.toContain('widersprochen');
    const anonymous = await t.app.inject({ method: 'GET', url: `/api/inbox/${ours}` });
    expect(anonymous.statusCode).toBe(401);
  });
});
