import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { createModelProvider } from '../../src/modules/models/index.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { FakeModelServer } from '../chat/fake-model-server.js';
import { useModel } from '../chat/fixtures.js';
import { sendChat } from '../chat/helpers.js';
import { bookingsOf, createEvent, getEvent } from './fixtures.js';
import { eventually, ledgerOf, settled } from '../chat/ledger.js';
import type { Queryable } from '../../src/db/database.js';

interface Action {
  type: string;
  tag: string;
  event_id: string;
  status: string;
  booking_id: string | null;
  waitlist_position: number | null;
  payment_url: string | null;
  reason: string | null;
}

describeApp('bookings made by bots', (get) => {
  const model = new FakeModelServer();
  let restore: () => void;

  beforeAll(async () => {
    await model.start();
    const config = testConfig({
      MODEL_PROVIDER: 'openai',
      MODEL_NAME: 'parley-test-model',
      OPENAI_BASE_URL: `${model.url}/v1`,
      OPENAI_API_KEY: 'sk-test-provider-key',
    });
    restore = useModel(get().ctx, createModelProvider(config.model));
  });
  afterAll(async () => {
    restore();
    await model.stop();
  });
  beforeEach(() => {
    model.requests.length = 0;
    model.queue = [];
  });

  const replyWith = (text: string) => model.queue.push({ kind: 'reply', text });

  async function chat(tenant: TenantFixture, botId: string, senderId: string | null, channel = 'api') {
    const res = await sendChat({ ...get() }, tenant, botId, {
      message: 'Ich möchte buchen',
      ...(senderId ? { sender_id: senderId } : {}),
      channel,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ reply: string; actions: Action[] }>();
  }

  function systemPromptOf(index: number): string {
    const messages = model.requests[index]!.body.messages as { role: string; content: string }[];
    return messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n');
  }

  it("lists the bot's bookable events with the tag syntax in the system prompt", async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const otherBot = await tenant.bot();
    const own = await createEvent(app, tenant, { title: 'Eigener Kurs', bot_id: bot.id }, 'selling');
    const shared = await createEvent(app, tenant, { title: 'Für alle', capacity_total: 0 }, 'selling');
    await createEvent(app, tenant, { title: 'Anderer Bot', bot_id: otherBot.id }, 'selling');
    await createEvent(app, tenant, { title: 'Entwurf' });
    await createEvent(app, tenant, { title: 'Voll', capacity_total: 0, waitlist_max: 0 }, 'selling');
    await createEvent(app, tenant, { title: 'Zu spät', booking_deadline: '2020-01-01T00:00:00Z' }, 'selling');
    await createEvent(app, await buildTenant(ctx), { title: 'Fremder Mandant' }, 'selling');

    replyWith('Gern.');
    await chat(tenant, bot.id, 'kunde-1');
    const prompt = systemPromptOf(0);
    expect(prompt).toContain('Buchbare Veranstaltungen');
    expect(prompt).toContain(`[BOOK:${own.id}]`);
    expect(prompt).toContain(`[WAITLIST:${shared.id}]`);
    for (const hidden of ['Anderer Bot', 'Entwurf', 'Voll', 'Zu spät', 'Fremder Mandant']) {
      expect(prompt).not.toContain(hidden);
    }
  });

  it('books from a [BOOK] tag for the sender, removes the tag and reports the action', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const event = await createEvent(app, tenant, { capacity_total: 5 }, 'selling');
    const sender = `whatsapp:+49${Date.now()}`;
    replyWith(`Ich habe Sie angemeldet. [BOOK:${event.id}]`);
    const body = await chat(tenant, bot.id, sender, 'email');
    expect(body.reply).toBe('Ich habe Sie angemeldet.');
    expect(body.actions).toEqual([
      expect.objectContaining({
        type: 'booking',
        tag: 'BOOK',
        event_id: event.id,
        status: 'confirmed',
        booking_id: expect.any(String),
        reason: null,
      }),
    ]);
    const contacts = await ctx.db.query<{ id: string; channel: string }>(
      'SELECT id, channel FROM contacts WHERE tenant_id = $1 AND sender_id = $2',
      [tenant.id, sender],
    );
    expect(contacts).toHaveLength(1);
    const rows = await ctx.db.query<{ contact_id: string; booking_channel: string; status: string }>(
      'SELECT contact_id, booking_channel, status FROM event_bookings WHERE event_id = $1',
      [event.id],
    );
    expect(rows).toEqual([{ contact_id: contacts[0]!.id, booking_channel: 'email', status: 'confirmed' }]);
    const stored = await ctx.db.query<{ content: string }>(
      `SELECT content FROM messages WHERE tenant_id = $1 AND role = 'assistant'`,
      [tenant.id],
    );
    expect(stored.map((m) => m.content)).toEqual(['Ich habe Sie angemeldet.']);
  });

  it('does not double-book a repeated tag, in one reply or in a later one', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const event = await createEvent(app, tenant, { capacity_total: 5 }, 'selling');
    replyWith(`Gebucht [BOOK:${event.id}] [BOOK:${event.id}]`);
    const first = await chat(tenant, bot.id, 'wiederholer');
    expect(first.actions).toHaveLength(1);
    expect(first.actions[0]!.status).toBe('confirmed');
    replyWith(`Nochmal: [BOOK:${event.id}]`);
    const second = await chat(tenant, bot.id, 'wiederholer');
    expect(second.reply).toBe('Nochmal:');
    expect(second.actions).toEqual([
      expect.objectContaining({
        status: 'refused',
        reason: 'already_booked',
        booking_id: first.actions[0]!.booking_id,
      }),
    ]);
    expect(await bookingsOf(ctx, event.id)).toHaveLength(1);
    expect((await getEvent(app, tenant, event.id)).capacity_booked).toBe(1);
  });

  it("books nothing for another tenant's event, an unknown id or another bot's event", async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const other = await buildTenant(ctx);
    const bot = await tenant.bot();
    const otherBot = await tenant.bot();
    const foreign = await createEvent(app, other, { capacity_total: 5 }, 'selling');
    const elsewhere = await createEvent(app, tenant, { capacity_total: 5, bot_id: otherBot.id }, 'selling');
    replyWith(`Versuch [BOOK:${foreign.id}] [WAITLIST:${randomUUID()}] [BOOK:kaputt] [BOOK:${elsewhere.id}]`);
    const body = await chat(tenant, bot.id, 'neugierig');
    expect(body.reply).toBe('Versuch');
    expect(body.actions.map((a) => [a.status, a.reason])).toEqual([
      ['refused', 'event_not_found'],
      ['refused', 'event_not_found'],
      ['refused', 'event_not_found'],
      ['refused', 'event_not_found'],
    ]);
    expect(await bookingsOf(ctx, foreign.id)).toHaveLength(0);
    expect(await bookingsOf(ctx, elsewhere.id)).toHaveLength(0);
    const contacts = await ctx.db.query('SELECT 1 FROM contacts WHERE sender_id = $1', ['neugierig']);
    expect(contacts).toHaveLength(0);
  });

  it('reports waitlist positions, refusals with reason and payment links', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const full = await createEvent(app, tenant, { capacity_total: 0, waitlist_max: 1 }, 'selling');
    const external = await createEvent(
      app,
      tenant,
      { price: 30, payment_model: 'external_link', external_payment_url: 'https://pay.example/abc' },
      'selling',
    );
    replyWith(`Sie stehen auf der Warteliste. [WAITLIST:${full.id}] [BOOK:${external.id}]`);
    const first = await chat(tenant, bot.id, 'person-a');
    expect(first.actions).toEqual([
      expect.objectContaining({ tag: 'WAITLIST', status: 'waitlist', waitlist_position: 1 }),
      expect.objectContaining({ tag: 'BOOK', status: 'confirmed', payment_url: 'https://pay.example/abc' }),
    ]);
    replyWith(`Leider voll. [WAITLIST:${full.id}]`);
    const second = await chat(tenant, bot.id, 'person-b');
    expect(second.actions).toEqual([expect.objectContaining({ status: 'refused', reason: 'fully_booked' })]);

    replyWith(`Gebucht. [BOOK:${external.id}]`);
    const anonymous = await chat(tenant, bot.id, null);
    expect(anonymous.reply).toBe('Gebucht.');
    expect(anonymous.actions).toEqual([
      expect.objectContaining({ status: 'refused', reason: 'sender_required' }),
    ]);
  });

  it('books nothing when the conversation was handed over while the model answered (409)', async () => {
    const { app, ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const event = await createEvent(app, tenant, { capacity_total: 5 }, 'selling');
    replyWith('Hallo.');
    const opened = await chat(tenant, bot.id, 'uebergeben');
    const conversationId = (opened as unknown as { conversation_id: string }).conversation_id;
    const before = await ledgerOf(ctx.db, tenant.id);

    model.queue.push({ kind: 'delay', ms: 400, text: `Gebucht! [BOOK:${event.id}]` });
    const pending = sendChat({ ...get() }, tenant, bot.id, {
      message: 'Bitte buchen',
      sender_id: 'uebergeben-neu',
      conversation_id: conversationId,
    });
    await eventually(
      async () => model.requests.length,
      (n) => n >= 2,
    );
    await ctx.db.query(`UPDATE conversations SET status = 'handed_over' WHERE id = $1`, [conversationId]);
    const res = await pending;
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe('Conversation an Mitarbeiter übergeben');
    expect(await bookingsOf(ctx, event.id)).toHaveLength(0);
    expect((await getEvent(app, tenant, event.id)).capacity_booked).toBe(0);
    const contacts = await ctx.db.query('SELECT 1 FROM contacts WHERE tenant_id = $1 AND sender_id = $2', [
      tenant.id,
      'uebergeben-neu',
    ]);
    expect(contacts).toHaveLength(0);
    expect(
      await eventually(
        () => ledgerOf(ctx.db, tenant.id),
        (l) => l.counter === before.counter,
      ),
    ).toEqual(before);
  });

  it('books nothing when storing the exchange fails', async () => {
    const { app, ctx, db } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const event = await createEvent(app, tenant, { capacity_total: 5 }, 'selling');
    const transaction = db.transaction.bind(db);
    db.transaction = (<T>(fn: (tx: Queryable) => Promise<T>) =>
      transaction((tx) =>
        fn({
          query: ((sql: string, params?: readonly unknown[]) =>
            sql.includes('INSERT INTO messages')
              ? Promise.reject(new Error('disk full'))
              : tx.query(sql, params)) as Queryable['query'],
        }),
      )) as typeof db.transaction;
    try {
      replyWith(`Gebucht! [BOOK:${event.id}]`);
      const res = await sendChat({ ...get() }, tenant, bot.id, { message: 'Buchen', sender_id: 'pech' });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ error: 'Interner Fehler' });
    } finally {
      db.transaction = transaction;
    }
    expect(await bookingsOf(ctx, event.id)).toHaveLength(0);
    expect((await getEvent(app, tenant, event.id)).capacity_booked).toBe(0);
    const contacts = await ctx.db.query('SELECT 1 FROM contacts WHERE tenant_id = $1', [tenant.id]);
    expect(contacts).toHaveLength(0);
    expect(
      await eventually(
        () => ledgerOf(ctx.db, tenant.id),
        (l) => l.counter === 0,
      ),
    ).toEqual(settled(0));
  });

  it('leaves replies without booking tags and chats without events untouched (a block tag naming no block is removed)', async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    replyWith('Wir öffnen um 9 Uhr [LIST:Zeiten].');
    const body = await chat(tenant, bot.id, 'x');
    expect(body.reply).toBe('Wir öffnen um 9 Uhr.');
    expect(body.actions).toEqual([]);
    expect(systemPromptOf(0)).not.toContain('Buchbare Veranstaltungen');
  });

  it('offers from a cache that any change to an event ends, and skips the events statement in between', async () => {
    const { app, ctx, db } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const reads: string[] = [];
    const query = db.query.bind(db);
    db.query = ((sql: string, params?: readonly unknown[]) => {
      if (sql.includes('FROM events') && sql.includes('booking_deadline IS NULL')) reads.push(sql);
      return query(sql, params);
    }) as typeof db.query;
    try {
      replyWith('Eins.');
      await chat(tenant, bot.id, 'k');
      replyWith('Zwei.');
      await chat(tenant, bot.id, 'k');
      expect(reads).toHaveLength(1);
      expect(systemPromptOf(1)).not.toContain('Buchbare Veranstaltungen');

      // Written directly, as another instance would: only the version read with the bot tells.
      const event = await createEvent(app, tenant, { title: 'Neuer Kurs', capacity_total: 1 }, 'selling');
      replyWith('Drei.');
      await chat(tenant, bot.id, 'k');
      expect(systemPromptOf(2)).toContain(`[BOOK:${event.id}]`);
      await query('UPDATE events SET capacity_booked = 1, waitlist_max = 0 WHERE id = $1', [event.id]);
      replyWith('Vier.');
      await chat(tenant, bot.id, 'k');
      expect(systemPromptOf(3)).not.toContain('Neuer Kurs');
      expect(reads).toHaveLength(3);

      // An offer whose booking deadline passes is not served from the cache past it.
      const soon = new Date(Date.now() + 1500).toISOString();
      await createEvent(app, tenant, { title: 'Gleich vorbei', booking_deadline: soon }, 'selling');
      replyWith('Fünf.');
      await chat(tenant, bot.id, 'k');
      expect(systemPromptOf(4)).toContain('Gleich vorbei');
      await new Promise((resolve) => setTimeout(resolve, 1600));
      replyWith('Sechs.');
      await chat(tenant, bot.id, 'k');
      expect(systemPromptOf(5)).not.toContain('Gleich vorbei');
    } finally {
      db.query = query;
    }
  });
});
