import { expect, it } from 'vitest';
import type { Queryable } from '../../src/db/database.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';

/** A conversation of a customer question and the bot's reply (or none, handed over). */
async function exchange(
  db: Queryable,
  tenant: TenantFixture,
  botId: string,
  question: string,
  reply: { content: string; knowledge: boolean } | 'handed_over',
) {
  const [conversation] = await db.query<{ id: string }>(
    `INSERT INTO conversations (tenant_id, bot_id, channel, sender_id, status, escalated_at)
     VALUES ($1, $2, 'api', 's', $3, $4) RETURNING id`,
    [
      tenant.id,
      botId,
      reply === 'handed_over' ? 'handed_over' : 'active',
      reply === 'handed_over' ? new Date() : null,
    ],
  );
  await db.query(
    `INSERT INTO messages (tenant_id, conversation_id, bot_id, role, content) VALUES ($1, $2, $3, 'user', $4)`,
    [tenant.id, conversation!.id, botId, question],
  );
  if (reply !== 'handed_over') {
    await db.query(
      `INSERT INTO messages (tenant_id, conversation_id, bot_id, role, content, knowledge_used)
       VALUES ($1, $2, $3, 'assistant', $4, $5)`,
      [tenant.id, conversation!.id, botId, reply.content, reply.knowledge],
    );
  }
  return conversation!.id;
}

describeApp('unanswered questions', (get) => {
  const req = (
    tenant: TenantFixture,
    method: 'GET' | 'POST',
    url: string,
    payload?: object,
    headers: Record<string, string> | null = tenant.owner.headers,
  ) => get().app.inject({ method, url, ...(headers ? { headers } : {}), ...(payload ? { payload } : {}) });

  it('groups what the bot could not answer, turns it into knowledge, and clears the group', async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const otherBot = await tenant.bot();
    const noKnowledge = { content: 'Das weiß ich leider nicht.', knowledge: false };
    await exchange(ctx.db, tenant, bot.id, 'Habt ihr Parkplätze?', noKnowledge);
    await exchange(ctx.db, tenant, bot.id, 'Parkplätze habt ihr?', 'handed_over');
    await exchange(ctx.db, tenant, bot.id, 'Was kostet Yoga?', {
      content: 'Yoga kostet 12 €.',
      knowledge: true,
    });
    await exchange(ctx.db, tenant, otherBot.id, 'Gibt es Duschen?', noKnowledge);

    const list = await req(tenant, 'GET', `/api/bots/${bot.id}/unanswered`);
    expect(list.statusCode, list.body).toBe(200);
    const groups = list.json().data;
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ question: 'Parkplätze habt ihr?', count: 2, handed_over: 1 });
    expect(groups[0].conversation_ids).toHaveLength(2);

    // One click: a knowledge entry with the question; the hit test then finds it.
    const entry = await req(tenant, 'POST', `/api/bots/${bot.id}/knowledge`, {
      title: groups[0].question,
      content: 'Parkplätze gibt es kostenlos im Hof hinter dem Studio.',
    });
    expect(entry.statusCode, entry.body).toBe(201);
    const hit = await req(
      tenant,
      'GET',
      `/api/bots/${bot.id}/knowledge/search?q=${encodeURIComponent(groups[0].question)}`,
    );
    expect(hit.statusCode, hit.body).toBe(200);
    expect(JSON.stringify(hit.json().results ?? hit.json())).toContain('Hof hinter dem Studio');

    const resolved = await req(tenant, 'POST', `/api/bots/${bot.id}/unanswered/resolve`, {
      key: groups[0].key,
    });
    expect(resolved.statusCode, resolved.body).toBe(204);
    expect((await req(tenant, 'GET', `/api/bots/${bot.id}/unanswered`)).json().data).toEqual([]);
    // Asked again later: the group is back with the new occurrence only.
    await exchange(ctx.db, tenant, bot.id, 'Parkplätze?', noKnowledge);
    expect((await req(tenant, 'GET', `/api/bots/${bot.id}/unanswered`)).json().data).toMatchObject([
      { count: 1 },
    ]);
  });

  it('refuses bad input (400), strangers (401), viewers resolving (403) and other tenants (404)', async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const other = await buildTenant(ctx);
    const bot = await tenant.bot();
    const foreign = await other.bot();
    const viewer = await tenant.user('viewer');
    expect((await req(tenant, 'GET', `/api/bots/${bot.id}/unanswered?days=0`)).statusCode).toBe(400);
    expect(
      (await req(tenant, 'POST', `/api/bots/${bot.id}/unanswered/resolve`, { key: '' })).statusCode,
    ).toBe(400);
    expect(
      (await req(tenant, 'POST', `/api/bots/${bot.id}/unanswered/resolve`, { key: '  ' })).statusCode,
    ).toBe(400);
    expect((await req(tenant, 'GET', `/api/bots/${bot.id}/unanswered`, undefined, null)).statusCode).toBe(
      401,
    );
    expect(
      (await req(tenant, 'GET', `/api/bots/${bot.id}/unanswered`, undefined, viewer.headers)).statusCode,
    ).toBe(200);
    expect(
      (await req(tenant, 'POST', `/api/bots/${bot.id}/unanswered/resolve`, { key: 'x' }, viewer.headers))
        .statusCode,
    ).toBe(403);
    expect((await req(tenant, 'GET', `/api/bots/${foreign.id}/unanswered`)).statusCode).toBe(404);
    expect(
      (await req(tenant, 'POST', `/api/bots/${foreign.id}/unanswered/resolve`, { key: 'x' })).statusCode,
    ).toBe(404);
    expect((await req(tenant, 'GET', `/api/bots/not-a-uuid/unanswered`)).statusCode).toBe(404);
  });

  it("offers the person's reply that answered the question, not their greeting", async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const person = await tenant.user('agent');
    const conversation = await exchange(
      ctx.db,
      tenant,
      bot.id,
      'Wann habt ihr samstags offen?',
      'handed_over',
    );
    for (const content of [
      'Hallo, hier ist Anna aus dem Team. Ich übernehme gern!',
      'Samstag von 10 bis 16 Uhr.',
      'Gern geschehen.',
    ]) {
      await ctx.db.query(
        `INSERT INTO messages (tenant_id, conversation_id, bot_id, role, content, author_user_id)
         VALUES ($1, $2, $3, 'assistant', $4, $5)`,
        [tenant.id, conversation, bot.id, content, person.id],
      );
    }
    // A greeting and the answer in one reply: the answer without the greeting.
    const other = await exchange(ctx.db, tenant, bot.id, 'Gibt es Parkplätze?', 'handed_over');
    await ctx.db.query(
      `INSERT INTO messages (tenant_id, conversation_id, bot_id, role, content, author_user_id)
       VALUES ($1, $2, $3, 'assistant', $4, $5)`,
      [tenant.id, other, bot.id, 'Hallo! Hier ist Ben. Ja, zwei Parkplätze im Hof.', person.id],
    );
    const res = await req(tenant, 'GET', `/api/bots/${bot.id}/unanswered`);
    expect(res.statusCode, res.body).toBe(200);
    const byQuestion = Object.fromEntries(
      res
        .json()
        .data.map((g: { question: string; person_answer: string | null }) => [g.question, g.person_answer]),
    );
    expect(byQuestion).toEqual({
      'Wann habt ihr samstags offen?': 'Samstag von 10 bis 16 Uhr.',
      'Gibt es Parkplätze?': 'Ja, zwei Parkplätze im Hof.',
    });
    // Another tenant sees neither.
    const stranger = await buildTenant(ctx);
    expect(
      (await req(stranger, 'GET', `/api/bots/${bot.id}/unanswered`, undefined, stranger.owner.headers))
        .statusCode,
    ).toBe(404);
  });
});
