import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { addKnowledge } from '../chat/fixtures.js';
import { sendChat } from '../chat/helpers.js';
import { seedConversation } from './seed.js';

interface ReviewMessage {
  id: string;
  role: string;
  content: string;
  tokens: number;
  model: string | null;
  knowledge_used: boolean;
  sources: { entry_id: string; title: string; score: number }[];
  actions: unknown[];
  blocks: unknown[];
  handover_reason: string | null;
  author_user_id: string | null;
  review: { verdict: string; note: string | null; reviewed_by: string | null } | null;
}
interface Review {
  id: string;
  rating: number | null;
  rating_comment: string | null;
  messages: ReviewMessage[];
}

describeApp('conversation review', (get) => {
  const call = (method: 'GET' | 'PUT' | 'DELETE' | 'POST', url: string, headers: object, payload?: unknown) =>
    get().app.inject({
      method,
      url,
      headers: headers as Record<string, string>,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  it('shows per bot reply its sources with scores, tokens, model and the hand-over; the customer rating', async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const entry = await addKnowledge(ctx, tenant.id, bot.id, {
      title: 'Öffnungszeiten',
      content: 'Wir haben montags bis freitags von 9 bis 18 Uhr geöffnet. Samstags von 10 bis 14 Uhr.',
    });
    const first = await sendChat(get(), tenant, bot.id, {
      message: 'Wann habt ihr geöffnet? Öffnungszeiten',
    });
    expect(first.statusCode, first.body).toBe(200);
    const id = first.json<{ conversation_id: string }>().conversation_id;
    const second = await sendChat(get(), tenant, bot.id, {
      message: 'Ich möchte mit einem Mitarbeiter sprechen',
      conversation_id: id,
    });
    expect(second.statusCode, second.body).toBe(200);
    const rated = await call('POST', '/webhooks/satisfaction-rating', tenant.keyHeaders, {
      conversation_id: id,
      rating: 2,
      comment: 'Zu langsam',
    });
    expect(rated.statusCode, rated.body).toBeLessThan(300);

    const res = await call('GET', `/api/conversations/${id}`, tenant.owner.headers);
    expect(res.statusCode, res.body).toBe(200);
    const review = res.json<Review>();
    expect(review).toMatchObject({ rating: 2, rating_comment: 'Zu langsam' });
    const [question, answer, request, handover] = review.messages;
    expect(question).toMatchObject({
      role: 'user',
      sources: [],
      actions: [],
      blocks: [],
      handover_reason: null,
    });
    expect(answer).toMatchObject({
      role: 'assistant',
      knowledge_used: true,
      handover_reason: null,
      review: null,
    });
    expect(answer!.sources).toEqual([
      { entry_id: (entry as { id: string }).id, title: 'Öffnungszeiten', score: expect.any(Number) },
    ]);
    expect(answer!.sources[0]!.score).toBeGreaterThan(0);
    expect(answer!.model).toBeTruthy();
    expect(answer!.tokens).toBeGreaterThan(0);
    expect(request).toMatchObject({ role: 'user' });
    expect(handover).toMatchObject({ role: 'assistant', handover_reason: 'customer_request', sources: [] });
  });

  it('staff (agent included) rate a reply good or bad with a note; viewers may not; other tenants get 404', async () => {
    const { ctx, db } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const { id, messageIds } = await seedConversation(db, tenant.id, bot.id, { messages: 2 });
    const reply = messageIds[1]!;
    const url = `/api/conversations/${id}/messages/${reply}/review`;
    const agent = await tenant.user('agent');

    const good = await call('PUT', url, agent.headers, { verdict: 'good', note: '  Genau richtig ' });
    expect(good.statusCode, good.body).toBe(200);
    expect(good.json<ReviewMessage>().review).toMatchObject({
      verdict: 'good',
      note: 'Genau richtig',
      reviewed_by: agent.id,
    });
    // A second rating replaces the first.
    const bad = await call('PUT', url, tenant.owner.headers, { verdict: 'bad', note: 'Preis fehlt' });
    expect(bad.statusCode).toBe(200);
    const detail = await call('GET', `/api/conversations/${id}`, agent.headers);
    expect(detail.json<Review>().messages[1]!.review).toMatchObject({
      verdict: 'bad',
      note: 'Preis fehlt',
      reviewed_by: tenant.owner.id,
    });
    const rows = await db.query('SELECT 1 FROM message_reviews WHERE message_id = $1', [reply]);
    expect(rows).toHaveLength(1);

    // Bad input: unknown verdict, a customer's message, a note too long.
    expect((await call('PUT', url, agent.headers, { verdict: 'meh' })).statusCode).toBe(400);
    expect(
      (await call('PUT', url, agent.headers, { verdict: 'good', note: 'x'.repeat(2001) })).statusCode,
    ).toBe(400);
    const onQuestion = await call(
      'PUT',
      `/api/conversations/${id}/messages/${messageIds[0]}/review`,
      agent.headers,
      {
        verdict: 'good',
      },
    );
    expect(onQuestion.statusCode).toBe(404);
    expect(
      (await call('PUT', `/api/conversations/${id}/messages/nope/review`, agent.headers, { verdict: 'good' }))
        .statusCode,
    ).toBe(404);

    // Security: no session, a viewer, another tenant.
    expect((await call('PUT', url, {}, { verdict: 'good' })).statusCode).toBe(401);
    const viewer = await tenant.user('viewer');
    expect((await call('PUT', url, viewer.headers, { verdict: 'good' })).statusCode).toBe(403);
    expect((await call('GET', `/api/conversations/${id}`, viewer.headers)).statusCode).toBe(200);
    const other = await buildTenant(ctx);
    const foreign = await call('PUT', url, other.owner.headers, { verdict: 'good' });
    expect(foreign.statusCode).toBe(404);
    expect((await call('DELETE', url, other.owner.headers)).statusCode).toBe(404);
    expect((await call('GET', `/api/conversations/${id}`, other.owner.headers)).statusCode).toBe(404);
    const still = await call('GET', `/api/conversations/${id}`, agent.headers);
    expect(still.json<Review>().messages[1]!.review).toMatchObject({ verdict: 'bad' });

    // Taking the rating back.
    const removed = await call('DELETE', url, agent.headers);
    expect(removed.statusCode).toBe(200);
    expect(removed.json<ReviewMessage>().review).toBeNull();
    expect((await call('DELETE', url, agent.headers)).statusCode).toBe(404);
  });

  it('filters the list by rating, review, hand-over and replies without knowledge, paging by keyset', async () => {
    const { ctx, db } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const list = async (query: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const suffix: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
        const res = await call('GET', `/api/conversations?limit=1${query}${suffix}`, tenant.owner.headers);
        expect(res.statusCode, res.body).toBe(200);
        const body = res.json<{ data: { id: string }[]; next_cursor: string | null }>();
        seen.push(...body.data.map((c) => c.id));
        cursor = body.next_cursor;
      } while (cursor);
      return seen.sort();
    };
    const at = (day: number) => new Date(Date.UTC(2026, 2, day)).toISOString();
    const a = await seedConversation(db, tenant.id, bot.id, { messages: 2, createdAt: at(1) });
    const b = await seedConversation(db, tenant.id, bot.id, { messages: 2, createdAt: at(2) });
    const c = await seedConversation(db, tenant.id, bot.id, { messages: 2, createdAt: at(3) });
    await db.query(`UPDATE conversations SET rating = 5, rated_at = now() WHERE id = $1`, [a.id]);
    await db.query(
      `UPDATE conversations SET rating = 1, rated_at = now(), handover_at = now() WHERE id = $1`,
      [b.id],
    );
    await db.query(`UPDATE messages SET knowledge_used = true WHERE conversation_id = ANY($1)`, [
      [a.id, c.id],
    ]);
    await call('PUT', `/api/conversations/${c.id}/messages/${c.messageIds[1]}/review`, tenant.owner.headers, {
      verdict: 'bad',
    });

    expect(await list('&rating=1')).toEqual([b.id]);
    expect(await list('&rating=5')).toEqual([a.id]);
    expect(await list('&handed_over=true')).toEqual([b.id]);
    expect(await list('&handed_over=false')).toEqual([a.id, c.id].sort());
    expect(await list('&no_knowledge=true')).toEqual([b.id]);
    expect(await list('&review=bad')).toEqual([c.id]);
    expect(await list('&review=good')).toEqual([]);
    expect(await list(`&from=2026-03-02&to=2026-03-03&bot_id=${bot.id}&channel=api&status=active`)).toEqual(
      [b.id, c.id].sort(),
    );
    expect((await call('GET', '/api/conversations?rating=7', tenant.owner.headers)).statusCode).toBe(400);
    expect((await call('GET', '/api/conversations?review=meh', tenant.owner.headers)).statusCode).toBe(400);
  });
});
