import { describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/database.js';
import { periodOf } from '../../src/modules/numbers/service.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';

const DAY = 86_400_000;
const today = new Date(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
/** A moment on day `d` of the period (0 = two days ago, 2 = today) at hh:mm UTC. */
const at = (d: number, hh: number, mm = 0) =>
  new Date(today.getTime() + (d - 2) * DAY + (hh * 60 + mm) * 60_000);
const day = (d: number) => at(d, 0).toISOString().slice(0, 10);

interface Seed {
  bot: string;
  created: Date;
  test?: boolean;
  handoverAt?: Date;
  rating?: number;
  /** [role, content, at, knowledge_used, person?] */
  messages: [string, string, Date, boolean?, boolean?][];
}

async function seed(db: Queryable, tenantId: string, ownerId: string, s: Seed) {
  const [c] = await db.query<{ id: string }>(
    `INSERT INTO conversations (tenant_id, bot_id, created_at, is_test, handover_at, escalated_at, status, rating, rated_at)
     VALUES ($1, $2, $3, $4, $5, $5, $6, $7::smallint, CASE WHEN $7::smallint IS NULL THEN NULL ELSE $3::timestamptz END) RETURNING id`,
    [
      tenantId,
      s.bot,
      s.created,
      s.test ?? false,
      s.handoverAt ?? null,
      s.handoverAt ? 'handed_over' : 'active',
      s.rating ?? null,
    ],
  );
  for (const [role, content, when, knowledge, person] of s.messages) {
    await db.query(
      `INSERT INTO messages (tenant_id, conversation_id, bot_id, role, content, created_at, knowledge_used, author_user_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [tenantId, c!.id, s.bot, role, content, when, knowledge ?? false, person ? ownerId : null],
    );
  }
  return c!.id;
}

describe('overview numbers: the period', () => {
  const now = new Date('2026-05-20T15:00:00Z');
  it('defaults to the last 30 days up to today and takes whole UTC days', () => {
    const p = periodOf({}, now);
    expect(p.from.toISOString()).toBe('2026-04-21T00:00:00.000Z');
    expect(p.before.toISOString()).toBe('2026-05-21T00:00:00.000Z');
    expect(p.days).toBe(30);
    expect(periodOf({ from: '2026-05-01', to: '2026-05-01' }, now).days).toBe(1);
  });
  it('refuses impossible days, a reversed and a too long period', () => {
    expect(() => periodOf({ from: '2026-02-30' }, now)).toThrow(/not a valid day/);
    expect(() => periodOf({ from: '2026-05-02', to: '2026-05-01' }, now)).toThrow(/after/);
    expect(() => periodOf({ from: '2024-01-01', to: '2026-05-01' }, now)).toThrow(/at most 366/);
  });
});

describeApp('overview numbers', (get) => {
  it('computes each figure from known data, per bot and for all bots', async () => {
    const { ctx, db } = get();
    const tenant = await buildTenant(ctx);
    const [a, b] = [await tenant.bot(), await tenant.bot()];
    const owner = tenant.owner.id;
    const seedOf = (s: Seed) => seed(db, tenant.id, owner, s);
    // Bot A: answered from knowledge, rated 5.
    await seedOf({
      bot: a.id,
      created: at(0, 9),
      rating: 5,
      messages: [
        ['user', 'Was kostet der Kurs?', at(0, 9)],
        ['assistant', '20 Euro.', at(0, 9, 1), true],
      ],
    });
    // Bot A: no knowledge, handed over, a person answers after 5 minutes; rated 2.
    await seedOf({
      bot: a.id,
      created: at(0, 10),
      handoverAt: at(0, 10, 1),
      rating: 2,
      messages: [
        ['user', 'Habt ihr Parkplätze?', at(0, 10)],
        ['assistant', 'Das weiß ich leider nicht.', at(0, 10, 1), false],
        ['assistant', 'Ja, hinter dem Haus.', at(0, 10, 6), false, true],
      ],
    });
    // Bot A: the same question the next day, a person answers after 15 minutes.
    await seedOf({
      bot: a.id,
      created: at(1, 12),
      handoverAt: at(1, 12, 1),
      messages: [
        ['user', 'Habt ihr Parkplätze?', at(1, 12)],
        ['assistant', 'Das weiß ich leider nicht.', at(1, 12, 1), false],
        ['assistant', 'Ja, zwei.', at(1, 12, 16), false, true],
      ],
    });
    // Bot A: handed over without a bot reply, no person has answered yet.
    await seedOf({
      bot: a.id,
      created: at(1, 13),
      handoverAt: at(1, 13),
      messages: [['user', 'Kann ich mit jemandem sprechen?', at(1, 13)]],
    });
    // Not counted: the test chat, and a conversation before the period.
    await seedOf({
      bot: a.id,
      created: at(1, 14),
      test: true,
      messages: [
        ['user', 'Test', at(1, 14)],
        ['assistant', 'Test-Antwort', at(1, 14, 1), true],
      ],
    });
    await seedOf({
      bot: a.id,
      created: at(-5, 9),
      handoverAt: at(-5, 9),
      rating: 1,
      messages: [['assistant', 'Alt', at(-5, 9), false]],
    });
    // Bot B: today, from knowledge, rated 4.
    await seedOf({
      bot: b.id,
      created: at(2, 8),
      rating: 4,
      messages: [
        ['user', 'Öffnungszeiten?', at(2, 8)],
        ['assistant', '9 bis 18 Uhr.', at(2, 8, 1), true],
      ],
    });
    // Bookings: two by bot A (one a waiting list), one by bot B, one made by hand.
    const [event] = await db.query<{ id: string }>(
      `INSERT INTO events (tenant_id, title, event_date, capacity_total, status) VALUES ($1, 'Yoga', $2, 10, 'selling') RETURNING id`,
      [tenant.id, day(2)],
    );
    const book = async (source: string, botId: string | null, tag: string, when: Date) => {
      const [contact] = await db.query<{ id: string }>(
        `INSERT INTO contacts (tenant_id, name) VALUES ($1, 'Gast') RETURNING id`,
        [tenant.id],
      );
      await db.query(
        `INSERT INTO event_bookings (tenant_id, event_id, contact_id, booked_at, metadata) VALUES ($1, $2, $3, $4, $5)`,
        [tenant.id, event!.id, contact!.id, when, JSON.stringify({ source, bot_id: botId, tag })],
      );
    };
    await book('chat', a.id, 'BOOK', at(1, 9));
    await book('chat', a.id, 'WAITLIST', at(2, 9));
    await book('chat', b.id, 'BOOK', at(2, 10));
    await book('dashboard', null, 'BOOK', at(2, 11));
    await book('chat', a.id, 'BOOK', at(-5, 11));

    const fetch = (query: string, headers = tenant.owner.headers) =>
      get().app.inject({
        method: 'GET',
        url: `/api/overview/numbers?from=${day(0)}&to=${day(2)}${query}`,
        headers,
      });

    const all = await fetch('');
    expect(all.statusCode, all.body).toBe(200);
    const n = all.json();
    expect(n).toMatchObject({
      from: day(0),
      to: day(2),
      bot_id: null,
      conversations: 5,
      handed_over: 3,
      handed_over_share: 0.6,
      replies: 4,
      replies_from_knowledge: 2,
      knowledge_share: 0.5,
      first_human_reply: { median_seconds: 600, handovers: 3, answered: 2 },
      satisfaction: { count: 3, distribution: [0, 1, 0, 1, 1] },
      bookings: { made: 3, waitlist: 1 },
    });
    expect(n.satisfaction.average).toBeCloseTo(11 / 3, 5);
    expect(n.days).toEqual([
      { day: day(0), conversations: 2, handed_over: 1, replies: 2, replies_from_knowledge: 1 },
      { day: day(1), conversations: 2, handed_over: 2, replies: 1, replies_from_knowledge: 0 },
      { day: day(2), conversations: 1, handed_over: 0, replies: 1, replies_from_knowledge: 1 },
    ]);
    expect(n.top_unanswered[0]).toMatchObject({ bot_id: a.id, question: 'Habt ihr Parkplätze?', count: 2 });
    // The test chat's questions and those before the period are not among them.
    expect(n.top_unanswered).toHaveLength(1);

    const onlyA = (await fetch(`&bot_id=${a.id}`)).json();
    expect(onlyA).toMatchObject({
      bot_id: a.id,
      conversations: 4,
      handed_over: 3,
      handed_over_share: 0.75,
      replies: 3,
      replies_from_knowledge: 1,
      first_human_reply: { median_seconds: 600, handovers: 3, answered: 2 },
      satisfaction: { average: 3.5, count: 2, distribution: [0, 1, 0, 0, 1] },
      bookings: { made: 2, waitlist: 1 },
    });
    const onlyB = (await fetch(`&bot_id=${b.id}`)).json();
    expect(onlyB).toMatchObject({
      conversations: 1,
      handed_over_share: 0,
      knowledge_share: 1,
      first_human_reply: { median_seconds: null, handovers: 0, answered: 0 },
      bookings: { made: 1, waitlist: 0 },
      top_unanswered: [],
    });

    // Nothing in an empty period: shares are null, not NaN.
    const empty = await get().app.inject({
      method: 'GET',
      url: '/api/overview/numbers?from=2020-01-01&to=2020-01-02',
      headers: tenant.owner.headers,
    });
    expect(empty.json()).toMatchObject({ conversations: 0, handed_over_share: null, knowledge_share: null });

    // Errors and security.
    expect((await fetch('&bot_id=nope')).statusCode).toBe(400);
    expect(
      (
        await get().app.inject({
          method: 'GET',
          url: '/api/overview/numbers?from=2026-13-01',
          headers: tenant.owner.headers,
        })
      ).statusCode,
    ).toBe(400);
    expect((await fetch('', {} as typeof tenant.owner.headers)).statusCode).toBe(401);
    const agent = await tenant.user('agent');
    expect((await fetch('', agent.headers)).statusCode).toBe(403);
    const viewer = await tenant.user('viewer');
    expect((await fetch('', viewer.headers)).statusCode).toBe(200);
    const other = await buildTenant(ctx);
    expect((await fetch(`&bot_id=${a.id}`, other.owner.headers)).statusCode).toBe(404);
    const theirs = (await fetch('', other.owner.headers)).json();
    expect(theirs).toMatchObject({ conversations: 0, replies: 0, bookings: { made: 0 }, top_unanswered: [] });
  });

  it("counts the team's verdicts on replies apart from customers' ratings, per bot and period", async () => {
    const { ctx, db } = get();
    const tenant = await buildTenant(ctx);
    const [a, b] = [await tenant.bot(), await tenant.bot()];
    const reviewer = tenant.owner.id;
    /** One bot reply in a conversation of `bot`, reviewed `verdict` at `when`. */
    const reviewed = async (bot: string, verdict: 'good' | 'bad', when: Date, test = false) => {
      const conversation = await seed(db, tenant.id, reviewer, {
        bot,
        created: at(0, 8),
        test,
        messages: [['assistant', 'Antwort', at(0, 8), false]],
      });
      await db.query(
        `INSERT INTO message_reviews (message_id, tenant_id, conversation_id, verdict, reviewed_by, reviewed_at)
         SELECT id, tenant_id, conversation_id, $2, $3, $4 FROM messages WHERE conversation_id = $1`,
        [conversation, verdict, reviewer, when],
      );
    };
    await reviewed(a.id, 'good', at(0, 9));
    await reviewed(a.id, 'bad', at(1, 9));
    await reviewed(a.id, 'bad', at(2, 9));
    await reviewed(b.id, 'good', at(2, 10));
    // Not counted: a review of a test conversation, one before the period.
    await reviewed(a.id, 'bad', at(1, 10), true);
    await reviewed(b.id, 'bad', at(-5, 10));
    // A customer's rating stays in satisfaction only.
    await seed(db, tenant.id, reviewer, { bot: a.id, created: at(1, 11), rating: 1, messages: [] });

    const fetch = (query: string, headers = tenant.owner.headers) =>
      get().app.inject({
        method: 'GET',
        url: `/api/overview/numbers?from=${day(0)}&to=${day(2)}${query}`,
        headers,
      });
    const all = await fetch('');
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json().staff_reviews).toEqual({ good: 2, bad: 2, good_share: 0.5 });
    expect(all.json().satisfaction).toMatchObject({ count: 1, distribution: [1, 0, 0, 0, 0] });
    expect((await fetch(`&bot_id=${a.id}`)).json().staff_reviews).toEqual({
      good: 1,
      bad: 2,
      good_share: 1 / 3,
    });
    expect((await fetch(`&bot_id=${b.id}`)).json().staff_reviews).toEqual({ good: 1, bad: 0, good_share: 1 });
    // Nothing reviewed: no share.
    const other = await buildTenant(ctx);
    expect((await fetch('', other.owner.headers)).json().staff_reviews).toEqual({
      good: 0,
      bad: 0,
      good_share: null,
    });
    expect((await fetch(`&bot_id=${a.id}`, other.owner.headers)).statusCode).toBe(404);
    expect((await fetch('', (await tenant.user('agent')).headers)).statusCode).toBe(403);
    expect((await fetch('', {} as typeof tenant.owner.headers)).statusCode).toBe(401);
  });
});
